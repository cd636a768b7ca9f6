// The lowering table: ONNX op -> how it runs on the NPU, for every op the NPU runs. One file
// per op family (conv_ops.cpp, matmul_ops.cpp, activation_ops.cpp, vector_ops.cpp,
// reduce_ops.cpp, pool_ops.cpp, resize_ops.cpp, layout_ops.cpp, conv_transpose.cpp);
// lowering.cpp walks the graph and looks each node up here. Adding an op is one entry in its
// family's file. Internal to the compiler library.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <map>
#include <string>
#include <vector>

#include "npu/compiler/backend/lowering/lowering.hpp"

namespace npu::compiler::lowering {

/// A Concat's inputs that are copied into its output, and where (bytes into the output).
struct ConcatCopies {
  std::vector<std::string> inputs;
  std::vector<std::uint64_t> dest_offsets;
};

/// What an op family's lowering may do while the graph is lowered (implemented by the
/// Lowerer in lowering.cpp).
class LowerCtx {
 public:
  virtual ~LowerCtx() = default;
  virtual const Graph& graph() const = 0;
  virtual int elem_bytes() const = 0;  ///< bytes per activation/weight element
  /// A LayerSpec named after `n` covering it (and any nodes fused into it).
  virtual LayerSpec base(const Node& n, LayerKind kind) = 0;
  /// Registers the layer's DDR tensors and appends it to the program.
  virtual void finish(LayerSpec& layer) = 0;
  /// Registers graph tensor `t`'s DDR region now (DDR regions are laid out in first-use order).
  virtual void touch(const std::string& t) = 0;
  /// Conv/Gemm tail: fused epilogue activation, MACs, bias param, then finish().
  virtual void finish_mac(const Node& n, LayerSpec& layer) = 0;
  /// A DDR-only parameter tensor (bias, scale/shift, LayerNorm gamma/beta) of `bytes`.
  virtual void touch_param(const std::string& name, std::uint64_t bytes) = 0;
  /// A name for `bytes` bytes at `offset` inside graph tensor `of` (a batch slice of a
  /// MatMul operand); usable as a LayerSpec input/weight/output.
  virtual std::string subview(const std::string& of, std::uint64_t offset, std::uint64_t bytes) = 0;
  /// A DDR tensor of `bytes` that exists only in the program (e.g. ConvTranspose's
  /// zero-inserted input); an intermediate named `name`.
  virtual std::string temp_tensor(const std::string& name, std::uint64_t bytes) = 0;
  /// The target's SRAM capacity in bytes (hw sram.capacity_bytes): fuse-swiglu's dual GEMM
  /// checks its minimal tile against it (swiglu_lowering.hpp).
  virtual std::uint64_t sram_capacity() const = 0;
  /// Layout op outputs no layer computes (composed_views): their readers read their input.
  virtual const std::set<std::string>& composed() const = 0;
  /// A Concat along the outermost axis whose inputs could not all be placed inside its output
  /// (zero copy): the inputs to copy and their byte offsets in the output. nullptr for a Concat
  /// along an inner axis (a layout copy).
  virtual const ConcatCopies* concat_copies(const Node& n) const = 0;
  /// Whether integer tensor `t` (int64/int32) is an integer graph input's ids in DDR: the input
  /// itself or a tensor linked to its bytes by nodes that run as no code (Reshape, Flatten,
  /// Squeeze, Unsqueeze, Identity, Dropout, a Cast to a 32/64-bit integer type, a Slice or Split
  /// along the outermost non-unit axis). Such a tensor is int32 in DDR, 4 B an element, as the
  /// runtime writes the ids (tensor bytes, view offsets), and a gather LOAD / scatter STORE reads
  /// it as int32 indices (index_float 0). Any other integer tensor was computed by a layer or the
  /// host (Faster R-CNN's RPN adds offsets to its TopK indices) at the activation width: the
  /// gather reads it as fp32 (index_float=4). The one test of both (lowering.cpp).
  virtual bool int32_ids(const std::string& t) const = 0;
  [[noreturn]] virtual void fail(const Node& n, const std::string& why) const = 0;
};

struct OpLowering {
  /// "" when the node can run on the NPU, else why not (goes to the host with that reason).
  std::string (*check)(const Graph& g, const Node& n) = nullptr;
  /// Emits the node's layer(s).
  void (*lower)(LowerCtx& ctx, const Node& n) = nullptr;
  /// Optional: a zero-copy view. Returns the byte offset (in element units of the input) of
  /// each output inside input 0, or an empty vector when the node must move data.
  std::vector<std::uint64_t> (*view)(const Graph& g, const Node& n) = nullptr;
  /// An alias (Reshape, Flatten, Identity...): the output is input 0's bytes; no layer, no
  /// `lower`.
  bool alias = false;
};

/// Op type -> lowering, for the ops the families below register.
const std::map<std::string, OpLowering>& table();
const OpLowering* find(const std::string& op_type);

// Op families (each in its own file).
void add_vector_ops(std::map<std::string, OpLowering>& t);  // vector_ops.cpp
void add_reduce_ops(std::map<std::string, OpLowering>& t);  // reduce_ops.cpp
void add_cast_ops(std::map<std::string, OpLowering>& t);    // cast_ops.cpp
void add_where_ops(std::map<std::string, OpLowering>& t);   // where_ops.cpp (computed condition)
void add_layout_ops(std::map<std::string, OpLowering>& t);  // layout_ops.cpp
/// Gather of a constant table by run-time indices -> a Gather layer (embedding_gather.cpp);
/// called by add_layout_ops after its own Gather entry, which stays for activations.
void add_embedding_gather(std::map<std::string, OpLowering>& t);
void add_scatter_ops(std::map<std::string, OpLowering>& t);  // scatter_ops.cpp: a row ScatterElements
/// The Expand outputs (of NPU nodes, `npu_placed` by node index) read only by row scatters on
/// the NPU, which read the indices before the Expand: no layer computes them (scatter_ops.cpp).
std::set<std::string> scatter_expands(const Graph& g, const std::vector<bool>& npu_placed);
/// "" when a row gather / scatter of a table (`what`: "Gather table", "ScatterElements data")
/// of `rows` rows of `row_elems` elements fits the fields that hold them, else why not (the
/// node then runs on the host): rows at most 2^32 - 1 (the gather LOAD's table_rows,
/// isa::DmaDesc::gather_rows, is a uint32), a row at most 2^31 - 1 elements (the layer's row
/// length, LayerSpec::channels, is an int). embedding_gather.cpp.
std::string row_limits(const std::string& what, std::uint64_t rows, std::uint64_t row_elems);
void add_matmul_ops(std::map<std::string, OpLowering>& t);  // matmul_ops.cpp
/// The fused attention of fuse-attention -> an Attention layer (attention_ops.cpp).
void add_attention_ops(std::map<std::string, OpLowering>& t);
void add_conv_transpose(std::map<std::string, OpLowering>& t);  // conv_transpose.cpp
void add_conv_ops(std::map<std::string, OpLowering>& t);        // conv_ops.cpp
void add_activation_ops(std::map<std::string, OpLowering>& t);  // activation_ops.cpp
void add_pool_ops(std::map<std::string, OpLowering>& t);        // pool_ops.cpp
void add_resize_ops(std::map<std::string, OpLowering>& t);      // resize_ops.cpp
/// Mask R-CNN's paste-masks Loop under --dynamic-size, costed at its bound (paste_loop_ops.cpp).
void add_loop_ops(std::map<std::string, OpLowering>& t);

// Layout ops as strided views for MOVE (layout_views.cpp); empty when the op or its form has
// no MOVE lowering (the layer is then costed only, and functional_problems says so).
/// Output `k` of a Transpose, Split or Slice (positive steps) node. A piece whose input is in
/// `composed` (a Transpose/Split/Slice output no layer computes, composed_views) reads that
/// op's input instead, through the composed index map (repeatedly, down the chain).
std::vector<LayoutPiece> layout_pieces(const Graph& g, const Node& n, std::size_t k,
                                       const std::set<std::string>* composed = nullptr);
/// A Concat along an inner axis: one piece per (non-empty) input; `composed` as above.
std::vector<LayoutPiece> concat_pieces(const Graph& g, const Node& n, const std::set<std::string>* composed = nullptr);
/// The Transpose/Split/Slice outputs whose readers can read their input directly (view
/// composition, XLA's "transpose folding" for MOVE): NPU-placed, with a MOVE lowering, no graph
/// output, not zero-copy placed (`placed`: tensors lowering links into another's bytes), read only
/// by NPU layout layers that compute by MOVE (a Transpose/Split/Slice with a MOVE lowering, a
/// Concat along an inner axis: `move_concat`), and, when `int8`, on their input's int8 grid.
/// A reader may also be a Reshape that only splits axes (an alias), when all of its output's
/// readers compute by MOVE or read it through a fused attention's head views (QKV split ->
/// head split: the attention reads the projection output with its row stride, attention_ops.cpp);
/// that output is composed too. No layer computes them: each reader's pieces read the op's
/// input. Deterministic.
std::set<std::string> composed_views(const Graph& g, const std::vector<bool>& npu_placed,
                                     const std::set<std::string>& placed,
                                     const std::function<bool(const Node&)>& move_concat, bool int8);
/// Where a composed tensor's elements are (strided_read): element i (x's index, outermost
/// first) is element `offset` + sum_d i_d stride[d] of `root`, a tensor some layer writes.
struct StridedRead {
  std::string root;
  std::vector<std::uint64_t> stride;  ///< elements, one per dim of x
  std::uint64_t offset = 0;           ///< elements
};
/// Tensor x in `composed` read through the layout ops that compute it; nullopt when x is not
/// composed or a link of its chain has no axis map.
std::optional<StridedRead> strided_read(const Graph& g, const std::string& x, const std::set<std::string>& composed);
/// After L.layout was built with `composed`: the nodes its composed inputs stood for join
/// L.covers (after the anchor), and L.inputs become the tensors its pieces read.
void read_through_composed(const Graph& g, const std::set<std::string>& composed, LayerSpec& L);
/// Nearest Resize/Upsample of NCHW by integer factors where out[y] = in[floor(y / f)].
std::vector<LayoutPiece> upsample_pieces(const Graph& g, const Node& n);
/// Nearest Resize of NCHW by a fraction (or an integer downscale) whose index map repeats with
/// at most 64 residue pairs: one piece per pair (resize_views.cpp); empty otherwise.
std::vector<LayoutPiece> nearest_resize_pieces(const Graph& g, const Node& n);
/// A 4-D Resize of mode linear (bilinear over H and W, N and C kept): the taps of each axis
/// (ONNX Resize, the coordinate clamped into [0, in - 1] as ONNX Runtime does); false for
/// another mode or rank, or a coordinate mode resize_source_coordinate does not know.
bool linear_resize_taps(const Graph& g, const Node& n, LinearTaps& h, LinearTaps& w);
/// The same for an int8 program: TFLite's ResizeBilinearInteger taps (resize_taps_int8.cpp),
/// w = f / 1024 with f the 10-bit fixed-point weight of i1 (f may be negative at the first
/// border, where i0 = i1); sizes from the shapes; coordinate modes half_pixel,
/// pytorch_half_pixel, align_corners, asymmetric (Upsample: asymmetric); false otherwise.
bool linear_resize_taps_int8(const Graph& g, const Node& n, LinearTaps& h, LinearTaps& w);
/// ONNX Resize's input coordinate of output index o along an axis of `in` -> `out` elements
/// (coordinate_transformation_mode `ctm`, `scale` the transform's); nullopt for a mode it does
/// not know (tf_crop_and_resize). Not clamped.
std::optional<double> resize_source_coordinate(const std::string& ctm, std::int64_t o, std::int64_t in,
                                               std::int64_t out, double scale);
/// The scale of axis d in a Resize's coordinate transform: its `scales` attribute, or out/in
/// when it has `sizes` (canonical_forms.hpp moved both to attributes).
double resize_scale(const Node& n, const std::vector<std::int64_t>& in, const std::vector<std::int64_t>& out,
                    std::size_t d);
/// Pieces with their extent-1 dims dropped and contiguous neighbours merged (never the outer
/// dims, which the pieces share); empty on more than 6 dims left or an empty tensor.
std::vector<LayoutPiece> normalise_pieces(std::vector<LayoutPiece> pieces);

// Helpers shared by the families.
/// A Slice node's constant arguments (attributes before opset 10, constant inputs after),
/// axes defaulted to 0..n-1, steps empty when absent. false when an argument is not a constant
/// or the lists disagree in length.
struct SliceArgs {
  std::vector<std::int64_t> starts, ends, axes, steps;
};
bool slice_args(const Graph& g, const Node& n, SliceArgs& out);
bool is_const(const Graph& g, const std::string& t);
/// "" when every listed tensor has a static shape, else the reason.
std::string shapes_known(const Graph& g, const Node& n);
std::uint64_t elements(const Graph& g, const std::string& t);
/// Throws ConfigError "<graph>: node '<name>' (<op>): error: <why>".
[[noreturn]] void fail(const Graph& g, const Node& n, const std::string& why);
/// The static shape of tensor `t` read or written by `n`; fail()s if it is missing or unknown.
const std::vector<std::int64_t>& shape_of(const Graph& g, const Node& n, const std::string& t);
/// "" when tensor `t` is a 4-D NCHW tensor with a batch >= 1 (a batch's images run one after
/// another), else why not (a batch below 1 names the --input-shape to pass).
std::string rank4_batch1(const Graph& g, const std::string& t);
/// Pads for one spatial axis of a window op (Conv, pooling): explicit pads, or auto_pad
/// SAME_UPPER/SAME_LOWER/VALID (ONNX Operators.md, Conv). `in`/`out` are the axis sizes,
/// `k`/`s`/`d` the kernel, stride and dilation.
void axis_pads(const std::string& auto_pad, int in, int out, int k, int s, int d, int explicit_begin,
               int explicit_end, int& begin, int& end);
/// The ACT op of an ONNX activation op or a fused-activation name ("relu", "Relu", "silu"...);
/// ActOp::None when unknown (activation_ops.cpp).
isa::ActOp act_from_name(const std::string& s);
/// The ACT op of an ONNX Gelu with attribute `approximate`: gelu ("none", the erf form),
/// gelu_tanh ("tanh"), ActOp::None for any other value (activation_ops.cpp).
isa::ActOp gelu_act(const std::string& approximate);
/// Fills the activation of a Conv/Gemm/MatMul epilogue from the fused attributes
/// (fuse-activation; activation_ops.cpp).
void epilogue_act(const Node& n, LayerSpec& L);
/// Product of a Concat output's axes before the concat axis (1: its inputs are contiguous
/// slices of the output; layout_ops.cpp).
std::int64_t concat_outer(const Graph& g, const Node& n);

}  // namespace npu::compiler::lowering
