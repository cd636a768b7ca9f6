// Lowering: from a (rewritten) Graph to the list of NPU layers to generate code for, the
// nodes left to the host, and where every tensor lives in DDR (own region, an alias of
// another tensor, or a slice of a concat buffer). No instructions yet (codegen.hpp).
// Reference: docs/compiler.md "Lowering".
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "npu/compiler/ir/graph.hpp"
#include "npu/compiler/ir/kv_cache.hpp"
#include "npu/compiler/backend/tiling/tiling.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "npu/isa/instruction.hpp"

namespace npu::compiler {

/// Host: a maximal run of consecutive host-placed nodes (one HOST instruction);
/// Layout: a data-movement op (Pad, Transpose, non-view Slice/Split, Expand, Tile, Gather of
/// an activation, bilinear Resize...) costed as a streaming copy: input read once, output
/// written once, one vector-unit pass over the larger of the two;
/// Attention: a fused attention (fuse-attention), run FlashAttention-style (codegen/attention.cpp).
enum class LayerKind { Conv, Gemm, Act, Eltwise, Pool, Resize, Copy, Layout, Host, Gather, Attention };
/// "conv", "gemm", "act", "eltwise", "pool", "resize", "copy", "layout", "host", "gather", "attention"
const char* to_string(LayerKind k);

/// Where the rows of one operand of a fused attention lie in DDR: row r of head bh = (b, h),
/// h < heads (heads per batch), starts at element b stride_b + h stride_h + r stride_row of
/// the tensor and holds its row's elements contiguous. A packed [heads, rows, n] tensor is
/// heads = every head, stride_h = rows n, stride_row = n (`view` false); a view of
/// X [B, S, H, n] through Transpose(perm 0,2,1,3) is heads = H, stride_b = S H n, stride_h =
/// n, stride_row = H n ("views, not copies": the Transpose is never run). When X is itself a
/// view (a QKV Split's part of the projection output [B, S, 3 H n]: lowering_table.hpp
/// strided_read), the strides are the projection's (stride_row = 3 H n) and `offset` is the
/// part's first element (0, H n or 2 H n).
struct HeadView {
  bool view = false;
  std::uint64_t heads = 1, stride_b = 0, stride_h = 0, stride_row = 0, offset = 0;
  /// The element offset of row r of head bh.
  std::uint64_t start(std::uint64_t bh, std::uint64_t r) const {
    return offset + (bh / heads) * stride_b + (bh % heads) * stride_h + r * stride_row;
  }
};

/// The sizes of a fused attention layer (elements): `heads` independent (batch x head)
/// matrices, each softmax(Q K^T * scale + mask) V with Q [sq, d], K^T [d, sk], V [sk, dv].
/// `causal_offset` >= 0: the mask is causal (row i sees keys j <= i + causal_offset), so key
/// blocks past the diagonal are skipped and only blocks crossing it read the mask; -1: the
/// mask (if any) is read for every block.
struct AttentionGeom {
  std::uint64_t heads = 0, sq = 0, sk = 0, d = 0, dv = 0;
  std::int64_t causal_offset = -1;
  /// K read as a view (fused_attr::kKeyPerm, key.view): input 1 is the tensor X the Transpose
  /// read; key j of KV head bh is row j of `key` (d contiguous elements). Off: input 1 is K^T
  /// [heads, d, sk] (key unused).
  HeadView key;
  /// Q rows (d each), V rows (dv each) and O rows (dv each) of (KV) head bh: packed, or views
  /// (fused_attr::kQueryView, kValueView, kOutView) of the tensor a head split's Transpose read
  /// or a head merge's Transpose writes.
  HeadView query, value, out;
  /// Grouped-query attention (fused_attr::kKvGroup): query head bh (of `heads`) reads KV head
  /// bh / group of K (or the key view) and of V [heads / group, sk, dv]; 1 = one KV head each.
  std::uint64_t group = 1;
};

/// How a layout layer's output is found in one of its inputs: a strided view (layout_views.cpp),
/// computed by MOVE (docs/isa.md). Over the index space `dims` (outermost first, at most 6, each
/// >= 2 after normalisation), index i reads element in_offset + sum_d i_d in_stride[d] of
/// `input` and writes element out_offset + sum_d i_d out_stride[d] of the layer's output
/// (elements; an in stride of 0 repeats: nearest upsampling). The first `outer` dims are shared
/// by every piece of the layer (same extents, packed out strides: one outer index owns a
/// contiguous block of the output); the rest are the piece's own (a Concat input's part of the
/// concatenation axis and after).
struct LayoutPiece {
  std::string input;
  std::vector<std::uint64_t> dims, in_stride, out_stride;
  std::uint64_t in_offset = 0, out_offset = 0;
  std::size_t outer = 0;
};

/// One axis of a bilinear Resize (mode linear): per output index the two input indices it
/// blends and the weight of the second, y = x[i0] + w (x[i1] - x[i0]).
struct LinearTaps {
  std::vector<std::uint32_t> i0, i1;
  std::vector<float> w;
};

/// The depth axis of a Conv over NCDHW (a 5-D ONNX Conv, "Conv3d"): LayerSpec::geom is one
/// depth slice's 2-D convolution, and output depth slice od is the sum over kernel depth kd of
/// geom's convolution of input slice od * stride - pad_front + kd * dilation (skipped outside
/// [0, d_in): zero padding) with the 2-D kernel W[:, :, kd]. Codegen accumulates those CONVs
/// into one output tile (acc_in / acc_out, as the input-channel split does). d_in = 0: a 2-D
/// layer.
struct DepthGeom {
  int d_in = 0, d_out = 0, kd = 1, stride = 1, pad_front = 0, dilation = 1;
  bool on() const { return d_in > 0; }
  /// The input slice kernel depth `k` of output slice `od` reads, or -1 in the padding.
  int input_slice(int od, int k) const {
    const int id = od * stride - pad_front + k * dilation;
    return id >= 0 && id < d_in ? id : -1;
  }
  /// (od, kd) pairs that read an input slice: the 2-D convolutions the layer runs.
  std::uint64_t taps_run() const {
    std::uint64_t n = 0;
    for (int od = 0; od < d_out; ++od)
      for (int k = 0; k < kd; ++k) n += input_slice(od, k) >= 0;
    return n;
  }
};

/// One NPU layer: a (possibly fused) node. Tensor names are graph tensor names; param
/// tensors (bias, scale/shift) are DDR-only tensors named after their node.
struct LayerSpec {
  std::string name;                 ///< anchor node name: the instructions' layer=
  std::string op_type;              ///< ONNX op of the anchor node
  std::vector<std::string> covers;  ///< original nodes it covers, anchor first
  LayerKind kind = LayerKind::Conv;

  std::vector<std::string> inputs;  ///< activation inputs (Eltwise: a, b)
  std::string weight;               ///< Conv/Gemm weights ("" none)
  std::string bias;                 ///< bias param tensor, kParamElemBytes per channel ("" none)
  std::string scale_shift;          ///< ACT scale_shift params: scale[C] then shift[C] ("" none)
  std::string residual;             ///< skip tensor read by the epilogue ("" none)
  bool residual_mul = false;        ///< the epilogue multiplies by `residual` (isa mul=) instead of adding
  /// Gemm (fuse-swiglu): the gate projection's weights [K, N] ("" none). Each output tile first
  /// runs A x W_gate with a SiLU epilogue into the residual buffer, then A x `weight` (+ bias)
  /// with that buffer as its mul= operand: out = silu(A W_gate) * (A W_up + b). `residual` is "".
  std::string glu_gate;
  /// fuse-swiglu fell back to the single-GEMM epilogue for this (up) layer: why (no dual tile
  /// fits the SRAM); "" otherwise. Reported as a declined fuse-swiglu decision.
  std::string glu_fallback;
  std::string in_scale;             ///< per-input-channel scales applied to the input ("" none)
  /// Gemm: the row norm applied to each loaded A tile before the array reads it
  /// (fuse-norm-prologue): isa::ActOp::RmsNorm or LayerNorm (None: no prologue), its epsilon,
  /// and its DDR-only parameter tensor, gamma[K] (then beta[K]) at kParamElemBytes each.
  isa::ActOp prologue = isa::ActOp::None;
  float prologue_eps = 0;
  std::string prologue_params;
  /// Gemm: the rotary embedding applied to each output tile before its STORE (fuse-rope, ISA
  /// ACT rope): head dim d (0: none), positions S (output row r is at position r % S), and its
  /// DDR-only table, cos[d] then sin[d] per position ([S, 2d] at kParamElemBytes each).
  int rope_dim = 0;
  std::int64_t rope_positions = 0;
  std::string rope_table;
  std::string output;

  ConvGeom geom;                    ///< Conv, Gemm (as 1x1 conv), Pool (c_in = c_out = channels)
  DepthGeom depth;                  ///< Conv over NCDHW: the depth axis (geom is one slice's 2-D conv)
  AttentionGeom attention;          ///< Attention: inputs {Q, K^T, V}, `residual` the mask, act_alpha the scale
  isa::ActOp act = isa::ActOp::None;  ///< Conv/Gemm epilogue or ACT op
  float act_alpha = 0, act_beta = 0;
  isa::EltwiseOp eltwise = isa::EltwiseOp::Add;
  isa::PoolOp pool = isa::PoolOp::Max;
  int channels = 1;              ///< Act/Eltwise/Resize/Copy: channels of the NCHW tensor
  std::uint64_t elems = 0;       ///< Act/Eltwise/Copy: elements of the output
  int resize_h = 1, resize_w = 1;  ///< Resize: integer nearest scale factors
  std::uint64_t macs = 0;        ///< Conv/Gemm MACs of all images (0 for vector-unit layers)
  /// Conv: images in the batch. `geom` is one image's; the layer computes each weight tile
  /// for every image while it is resident (weights loaded once per batch, activations per
  /// image). Gemm/MatMul fold the batch into M; vector layers cover every image's elements.
  int batch = 1;
  std::vector<std::uint64_t> dest_offsets;  ///< Copy: byte offset in `output` of each input
  /// Eltwise broadcast of input b (isa::EltwiseParams): 0 = b has `elems` elements; else b
  /// has b_elems elements and element i uses b[(i / b_inner) % b_elems].
  std::uint64_t b_elems = 0, b_inner = 1;
  std::uint64_t in_elems = 0;    ///< Layout: elements read (all inputs); `elems` = elements written; Gather: indices
  /// Gather: rows of the table `weight` (its axis 0); `channels` = elements of one row,
  /// `inputs[0]` the indices (int32 ids, or fp32: gather_index_float), `elems` = indices x row
  /// elements written.
  std::uint64_t gather_rows = 0;
  /// Gather: the indices are computed in the program (not a graph input's int32 token ids or a
  /// view of them: lowering_table.hpp LowerCtx::int32_ids), so they sit in DDR at the activation width; the gather LOAD reads them as fp32 (index_float=4,
  /// docs/isa.md "LOAD gather"). Runs with data need fp32 activations.
  bool gather_index_float = false;
  /// Gather layer as a row scatter (ScatterElements along axis 0 whose indices repeat one index
  /// a row, reduction none): inputs {data, indices [n], updates [n, row...]}; the layer copies
  /// data to `output`, then STOREs update row r at output row indices[r] (scatter STOREs,
  /// docs/isa.md "LOAD gather"). `gather_rows` = data rows, `channels` = row elements,
  /// `in_elems` = n, `elems` = data elements.
  bool scatter = false;
  /// Layout, Resize: the output as strided views of the inputs, one piece per input (Concat) or
  /// one; empty when the op has no MOVE lowering (the layer is costed, not computed).
  std::vector<LayoutPiece> layout;
  /// Layout: ConvTranspose's zero insertion, computed by MOVE with `zero` (zero_insert.cpp):
  /// geom.c_in planes of geom.h_in x geom.w_in spread to geom.h_out x geom.w_out, input pixel
  /// (y, x) at (y stride_h, x stride_w), zeros elsewhere.
  bool zero_insert = false;
  /// Layout streaming copy (codegen/layout.cpp gen_layout): vector passes each step makes over
  /// its share; 1 for a copy, 6 for a paste-masks Loop costed at its --dynamic-size bound (the
  /// six passes of the bilinear blend, codegen/resize_linear.cpp).
  int vector_passes = 1;
  /// Layout: a Loop costed at its --dynamic-size bound (lowering/paste_loop_ops.cpp), what the
  /// bound is, for the compile report's note and the refusal of a run with data; "" otherwise.
  std::string bound_note;
  /// Layout: a bilinear Resize computed by LOAD, ELTWISE and MOVE (codegen/resize_linear.cpp):
  /// the taps of the rows and of the columns, geom.c_in planes of geom.h_in x geom.w_in to
  /// geom.h_out x geom.w_out, and the DDR-only parameter tensor of the weights (taps_h.w then
  /// taps_w.w, fp32). Empty when the layer is not one. In int8 programs (TFLite's
  /// ResizeBilinearInteger, codegen/resize_linear_int8.cpp) w is the 10-bit fixed-point weight
  /// f / 1024 (exact in float), linear_weights stays empty and the int32 weights are the layer's
  /// int8 table (`requant`: round(1024 w) of taps_h then of taps_w).
  LinearTaps taps_h, taps_w;
  std::string linear_weights;
  /// True for a bilinear Resize computed on the NPU: taps with their fp32 weight tensor, or
  /// (int8 execution of a quantised graph) with the int8 table of fixed-point weights.
  bool linear_resize() const { return !taps_h.i0.empty() && (!linear_weights.empty() || !requant.empty()); }
  /// Host: the nodes' work (MACs of Conv/Gemm/MatMul/LSTM-like ops; every other op counts one
  /// op per output element), the DDR bytes it reads (inputs from outside the run, weights) and
  /// writes (results used outside the run), and its results used outside the run.
  std::uint64_t host_macs = 0, host_ops = 0, host_rd_bytes = 0, host_wr_bytes = 0;
  std::vector<std::string> host_outputs;
  int host_unsized = 0;          ///< Host: tensors whose size is only known at run time (not costed)
  /// Marked by the fuse-layers pass: the depth-first scheduler may put it in a stack.
  bool depth_first = false;
  /// int8 execution of a quantised graph (int8_lowering.hpp): the instruction's zero points and
  /// clamp (int8.on: it requantises), the DDR-only table of int32 words it loads ("" none), and
  /// why the layer has no int8 lowering ("" when it has one; reported by functional_problems).
  isa::Requant int8;
  std::string requant;
  std::string int8_problem;
};

/// A node with no NPU code.
struct HostNode {
  std::string name;
  std::string op_type;
  std::string reason;  ///< why it runs on the host
};

/// A tensor's place in DDR: `offset` bytes into the region of DDR tensor `root`.
struct DdrPlace {
  std::string root;
  std::uint64_t offset = 0;
};

/// A DDR region the program declares (.tensor).
struct DdrTensor {
  std::string name;
  isa::TensorKind kind = isa::TensorKind::Intermediate;
  std::uint64_t bytes = 0;
};

struct LoweredGraph {
  std::vector<LayerSpec> layers;      ///< NPU layers in execution order
  std::vector<HostNode> host_nodes;   ///< in graph order
  std::vector<std::string> aliases;   ///< nodes lowered to no code (Flatten/Reshape/Identity, zero-copy Concat)
  /// Layout nodes (Transpose/Split/Slice) an output of which no layer computes: their readers'
  /// MOVEs read through them (view composition, lowering_table.hpp composed_views); each such
  /// node is in its readers' LayerSpec::covers.
  std::vector<std::string> composed;
  std::vector<DdrTensor> ddr_tensors; ///< in order of first use
  std::map<std::string, DdrPlace> place;  ///< every graph tensor an NPU layer reads or writes
  std::map<std::string, std::uint64_t> bytes;  ///< DDR bytes of each tensor in `place` (its own extent)
  /// GEMM weight tensors stored in mac_array.weight_dtype and their bytes there
  /// (weight_precision.hpp weight_dtype_tensor_bytes); empty when weight_dtype is the array's.
  std::map<std::string, std::uint64_t> weight_dtype_bytes;
  /// Where each graph output the NPU writes lives (also views and zero-copy concat outputs no
  /// layer reads, which `place` lacks); read back after a run with data (ddr_image.hpp).
  std::map<std::string, DdrPlace> output_place;
  /// KV-cache appends lowered in place (ir/kv_cache.hpp): present is a kv_cache tensor; the
  /// past input has no region of its own, `place[past]` is present's region, and its data are
  /// the first past_rows of each of the `groups` blocks of (past_rows + new_rows) x row_elems.
  std::vector<KvAppend> kv_appends;
  int act_bytes = 1;                  ///< bytes per activation/weight element
  /// int8 config and a quantised graph (Tensor::quant): layers carry their integer parameters
  /// (LayerSpec::int8, requant) and the DDR image is int8 (int8_lowering.hpp).
  bool int8_execution = false;
};

/// Lowers `graph` for `hw` (activations and weights take dtype_bytes(hw.mac_array.dtype)
/// bytes per element; bias and scale/shift isa::kParamElemBytes per channel).
/// Ops: Conv -> CONV; Gemm, 2-D MatMul with constant B -> GEMM; BatchNormalization -> ACT
/// scale_shift; Relu/Clip/LeakyRelu/Sigmoid/HardSigmoid/HardSwish -> ACT; Add/Mul of equal
/// shapes -> ELTWISE; MaxPool/AveragePool/GlobalAveragePool/GlobalMaxPool -> POOL; Resize
/// nearest with integer scales -> vector-unit copy (ACT none); Flatten/Reshape/Identity/
/// Squeeze/Unsqueeze/Dropout -> alias (no code); Concat on the outermost non-unit axis ->
/// zero copy (producers store into slices) or a copy layer per input that cannot be placed.
/// Anything else, and anything reading a host result, runs on the host (HostNode).
/// Throws ConfigError for a graph it cannot lower (unknown shapes, batch > 1 on the NPU).
LoweredGraph lower(const Graph& graph, const HwConfig& hw);

/// Why `node` cannot run on the NPU, or "" if it can (the lowering table's check for its op).
/// Used by place_host_ops() and by lower().
std::string npu_lowering_problem(const Graph& graph, const Node& node);

/// A graph name usable in .npuasm (characters outside [A-Za-z0-9_./:+-] become '_').
std::string isa_name(const std::string& name);

}  // namespace npu::compiler
