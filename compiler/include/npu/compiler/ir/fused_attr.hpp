// Fused nodes in the Graph IR: the attributes with which a pass marks a fused node, the
// nodes it covers, and the small graph-edit helpers the passes share. Part of the IR (not of
// the passes) so that the reference interpreter, which must never link the back end or the
// passes, reads fused nodes with the same conventions. Reference: docs/compiler.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "npu/compiler/ir/graph.hpp"

namespace npu::compiler {

/// Attributes with which a pass marks a fused node. A fused node keeps the ONNX op name of
/// its anchor (Conv or Gemm); these attributes (all prefixed "npu.") carry the epilogue.
namespace fused_attr {
/// string: names of the original nodes merged into this one (anchor excluded), in the order
/// they were merged, separated by ';'.
inline constexpr const char* kCovers = "npu.covers";
/// string: name of the BatchNormalization node folded into the weights and bias.
inline constexpr const char* kFoldedBn = "npu.folded_bn";
/// string: epilogue activation, an isa::ActOp name: relu, clip, leaky_relu, sigmoid, silu,
/// hard_sigmoid, hard_swish.
inline constexpr const char* kAct = "npu.act";
/// float: Clip min, LeakyRelu alpha, HardSigmoid alpha (ONNX meaning); absent = unused.
inline constexpr const char* kActAlpha = "npu.act_alpha";
/// float: Clip max, HardSigmoid beta; absent = unused.
inline constexpr const char* kActBeta = "npu.act_beta";
/// int 1: the node reads a residual (skip) tensor as input 3 (Conv inputs become
/// X, W, B-or-"", skip) and adds it after bias and before the activation.
inline constexpr const char* kResidual = "npu.residual";
/// int 1 (with kResidual): input 3 multiplies instead (a GLU's gate, fuse-gemm-epilogue): the
/// epilogue computes (acc + bias) * input3, then the activation (none when fused).
inline constexpr const char* kResidualMul = "npu.residual_mul";
/// string: tensor of per-input-channel scales the array applies to the input (fuse-se-gate).
inline constexpr const char* kInScale = "npu.in_scale";
/// string: second summand a vector-unit op adds to its input first (fuse-add-layernorm).
inline constexpr const char* kResidualIn = "npu.residual_in";
/// int 1: a fused attention (fuse-attention) in a node of op_type "Attention": inputs Q
/// [..., Sq, d], K^T [..., d, Sk], V [..., Sk, dv] and the constant additive mask or "";
/// output softmax(Q K^T * scale + mask) V, [..., Sq, dv]. Not ONNX's Attention (opset 23),
/// which takes K untransposed: an imported Attention has no such attribute.
inline constexpr const char* kAttention = "npu.attention";
/// float: the factor the scores are multiplied by before the mask is added (1/sqrt(d) for a
/// Div by sqrt(d)).
inline constexpr const char* kAttentionScale = "npu.attention_scale";
/// int: present when the mask is causal: query row i sees keys j <= i + offset (offset =
/// Sk - Sq); every other mask element is <= -1e9. Key blocks entirely past the diagonal are
/// skipped.
inline constexpr const char* kCausalOffset = "npu.causal_offset";
/// ints: present when input 1 is not K^T but the 4-D tensor X that a Transpose with this perm
/// turned into K^T (perm[2] = 3: the head dimension d stays X's innermost, contiguous axis).
/// The attention reads K's rows out of X as they lie and transposes each key block in SRAM
/// (MOVE), so K^T is never written to DDR ("views, not copies").
inline constexpr const char* kKeyPerm = "npu.key_perm";
/// int 1 each: "views, not copies" of the head split and merge. kQueryView: input 0 is not Q
/// [B, H, Sq, d] but X [B, Sq, H, d] that a Transpose(perm 0,2,1,3) turned into Q; kValueView:
/// input 2 likewise X [B, Sk, Hkv, dv] for V (under kKvGroup the un-repeated heads); kOutView:
/// the output is not O [B, H, Sq, dv] but Transpose(O, perm 0,2,1,3) [B, Sq, H, dv], the only
/// reader of O. The attention loads Q and V rows and stores O rows where they lie in those
/// tensors (strided DMA, rows H d elements apart), so the Transposes never run.
inline constexpr const char* kQueryView = "npu.query_view";
inline constexpr const char* kValueView = "npu.value_view";
inline constexpr const char* kOutView = "npu.out_view";
/// int g > 0: grouped-query attention. Inputs 1 (K, or X under kKeyPerm) and 2 (V) hold the
/// un-repeated KV heads [B, Hkv, Sk, .] with H = g Hkv: query head h (of Q's B x H heads,
/// flattened) reads KV head h / g. fuse-attention sets it when it absorbed the Unsqueeze /
/// Expand / Reshape that repeated each KV head g times (transforms/fusion/kv_repeat.hpp), so the
/// expanded copies are never written. Absent = 1 (K and V have Q's heads).
inline constexpr const char* kKvGroup = "npu.kv_group";
/// string: a row normalisation the GEMM applies to each loaded tile of its input A before the
/// array reads it (fuse-norm-prologue): "RMSNormalization" or "LayerNormalization" over the
/// last axis (K), ONNX semantics. The GEMM's inputs become A, B, bias or "", residual or "",
/// gamma [K] and beta [K] or "" (LayerNormalization's B); kPrologueEps holds the epsilon.
inline constexpr const char* kPrologue = "npu.prologue";
/// float: the epsilon of the kPrologue normalisation.
inline constexpr const char* kPrologueEps = "npu.prologue_eps";
/// int: the head dim d of a rotary embedding the GEMM applies to its output tile before the
/// store (fuse-rope, ISA ACT rope): out = y cos + rotate_half(y) sin within each d columns. The
/// GEMM's inputs become A, B, bias or "", residual or "", gamma or "", beta or "", cos, sin
/// (constants broadcasting to [positions, d]); output row r is at position r % kRopePositions.
inline constexpr const char* kRope = "npu.rope";
/// int: the number of positions of the kRope tables (the sequence length S of the rows).
inline constexpr const char* kRopePositions = "npu.rope_positions";
/// int 1: a dual-GEMM SwiGLU (fuse-swiglu): the node is the up projection and input 8 holds the
/// gate projection's weights (same op, shape and transB); inputs 2..7 keep their meaning (input
/// 3, the residual, is ""). Output = silu(A W_gate) * (A W_up + bias): both GEMMs read the same
/// A (and the same norm prologue), and the gate's product never leaves SRAM.
inline constexpr const char* kSwiglu = "npu.swiglu";
/// The input slot of the kSwiglu gate weights.
inline constexpr std::size_t kSwigluGateInput = 8;
/// int 1 on an int8 Softmax whose input is an attention-mask Add (set by post-training
/// quantisation, ptq.cpp quantize_eltwise_constants): the mask's sentinels saturate the masked
/// scores at code -128, and such keys weigh 0 (isa::Requant::mask_lowest, qref::SoftmaxRule).
inline constexpr const char* kMaskLowest = "npu.mask_lowest";
}  // namespace fused_attr

/// Names of the original nodes a (possibly fused) node covers, the node itself first.
std::vector<std::string> covered_nodes(const Node& node);

// ---- small graph helpers shared by the passes (ir/fused_attr.cpp) -------------------------

/// Index of the node called `name`, or -1.
long find_node(const Graph& graph, const std::string& name);

/// The node called `name` (find_node), or nullptr.
const Node* node_named(const Graph& graph, const std::string& name);

/// True if `tensor` is one of the graph outputs.
bool is_graph_output(const Graph& graph, const std::string& tensor);

/// A fusion's decline reason when its anchor runs on the host: "Gemm fc runs on the host
/// (REASON); Relu stays an NPU layer of its own", `what` naming the node(s) that would have
/// been absorbed; "" when the anchor runs on the NPU. A host node has no NPU epilogue: fused into
/// it, an NPU layer's work would move to the host unseen (new-user finding: a host Gemm took the
/// NPU Relu after it, and a graph whose one NPU layer was that Relu compiled to nothing).
std::string host_anchor_decline(const Node& anchor, const std::string& what);

/// Index of the node that reads `tensor` when it is its only reader and `tensor` is no graph
/// output (a value a rewrite may fold away without anyone else losing it), else -1.
long sole_reader(const Graph& graph, const std::string& tensor);

/// Merge: node `anchor` absorbs the nodes `absorbed` (removed from the graph). The anchor
/// moves to the position of the last of them so that every input it now reads (e.g. a
/// residual produced after the anchor) is produced before it; its npu.covers grows by
/// their names. The caller has already rewired the anchor's inputs/outputs.
void merge_nodes(Graph& graph, const std::string& anchor, const std::vector<std::string>& absorbed);

/// The value of constant one-element tensor `t` (float or integer storage), or nullopt when
/// `t` is empty, unknown, computed, has more than one element or holds no value.
std::optional<double> constant_scalar(const Graph& graph, const std::string& t);

/// Drop tensors that no node reads or writes and that are not graph inputs/outputs, nor in
/// `also_used` (e.g. the enclosing tensors a Loop/If body reads without listing them).
void remove_unused_tensors(Graph& graph, const std::set<std::string>& also_used = {});

/// Shape as "[1, 64, 56, 56]" for messages.
std::string shape_string(const std::vector<std::int64_t>& shape);

}  // namespace npu::compiler
