// The quantised reference's per-op int8 rules (docs/functional.md, "int8 execution"),
// written from their definitions -- TensorFlow Lite's fixed-point requantisation
// (tensorflow/lite/kernels/internal/common.h MultiplyByQuantizedMultiplier,
// quantization_util.cc QuantizeMultiplier, gemmlowp fixedpoint.h), TFLite's int8 Add / Mul /
// AveragePool kernels, ONNX QuantizeLinear / DequantizeLinear and the ONNX operator
// definitions -- and sharing no code with the compiler's back end (int8_lowering.hpp,
// int8_lut.cpp) or with npu/isa/cost/requant_math.hpp, which the back end and the hardware model
// use. Internal to the compiler library; tested in tests/compiler/test_quantised_rules.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "npu/compiler/ir/graph.hpp"
#include "npu/compiler/reference/reference_quantised.hpp"

namespace npu::compiler::qref {

/// A real multiplier M >= 0 as TFLite stores it: M = m / 2^31 x 2^shift, m in [2^30, 2^31)
/// (m = 0 for M = 0 or M < 2^-32).
struct Multiplier {
  std::int32_t m = 0;
  int shift = 0;
};

/// TFLite QuantizeMultiplier: (q, shift) = frexp(M), m = round(q 2^31) ties away from zero;
/// m = 2^31 becomes 2^30 with shift + 1; shift < -31 gives (0, 0); shift > 30 is clamped to 30
/// with m = 2^31 - 1 (TFLite's saturation). Throws std::invalid_argument for M < 0 or not finite.
Multiplier quantize_multiplier(double real);

/// gemmlowp SaturatingRoundingDoublingHighMul: round(a b / 2^31), ties toward +infinity
/// ((a b + nudge) / 2^31 truncated, nudge 2^30 or 1 - 2^30); a = b = -2^31 gives 2^31 - 1.
std::int32_t doubling_high_mul(std::int32_t a, std::int32_t b);

/// gemmlowp RoundingDivideByPOT: x / 2^e rounded to nearest, ties away from zero (e in [0, 31]).
std::int32_t divide_by_pot(std::int32_t x, int e);

/// TFLite MultiplyByQuantizedMultiplier: x M = divide_by_pot(doubling_high_mul(x 2^max(shift, 0),
/// m), max(-shift, 0)); the left shift saturates to int32 (TFLite leaves overflow undefined).
std::int32_t scale_by(std::int32_t x, const Multiplier& M);

/// clamp(v, lo, hi) as int8 (lo, hi inside [-128, 127]).
std::int8_t saturate(std::int64_t v, int lo = -128, int hi = 127);

/// ONNX QuantizeLinear of real x: saturate(round_half_even(x / scale) + zero_point); NaN gives
/// the zero point (the real 0), +-infinity saturate.
std::int8_t quantise(double x, const QuantGrid& g);
/// ONNX DequantizeLinear: (q - zero_point) x scale, in double.
double dequantise(std::int8_t q, const QuantGrid& g);

/// The grid of `t`: its per-tensor Tensor::quant (uint8 zero point z -> z - 128); nullopt when
/// absent, per channel, a scale <= 0 or a zero point out of range.
std::optional<QuantGrid> grid_of(const Tensor& t);

/// Gives the tensors a QDQ model leaves implicit their grid (docs/functional.md, "Compiler"):
/// a Conv/Gemm/MatMul output read only by a quantised Relu or Clip (and not a graph output)
/// takes that activation's grid; MaxPool, GlobalMaxPool and view outputs take their input's.
void infer_implicit_grids(Graph& g);

/// TFLite CalculateActivationRangeQuantized on grid `y`: [lo, hi] of a Relu ([max(-128, zp),
/// 127]) or a Clip(min, max) ([zp + round(min / s), zp + round(max / s)] clamped to int8,
/// round half away from zero). False when the range is empty.
bool activation_range(const std::string& op, double min, double max, const QuantGrid& y, int& lo, int& hi);

/// TFLite's int8 Add (kernels/add.cc Prepare, reference_integer_ops/add.h), left_shift 20:
/// a' = (a - zp_a) 2^20 x s_a / (2 max(s_a, s_b)), b' likewise, out = clamp(zp_y + (a' + b') x
/// 2 max(s_a, s_b) / (2^20 s_y)), each product by scale_by.
struct AddRule {
  Multiplier a, b, out;
  int zp_a = 0, zp_b = 0, zp_y = 0;
  AddRule(const QuantGrid& ga, const QuantGrid& gb, const QuantGrid& gy);
  std::int8_t operator()(std::int8_t qa, std::int8_t qb) const;
};

/// TFLite's int8 Mul (reference_integer_ops/mul.h): clamp(zp_y + (a - zp_a)(b - zp_b) x
/// s_a s_b / s_y).
struct MulRule {
  Multiplier m;
  int zp_a = 0, zp_b = 0, zp_y = 0;
  MulRule(const QuantGrid& ga, const QuantGrid& gb, const QuantGrid& gy);
  std::int8_t operator()(std::int8_t qa, std::int8_t qb) const;
};

/// TFLite's integer AveragePool division: sum / n rounded half away from zero,
/// (sum + n/2) / n or (sum - n/2) / n truncated, saturated to int8 (n > 0).
std::int8_t average(std::int64_t sum, std::int64_t n);

/// An unfolded inference BatchNormalization on one channel, quantised as TFLite quantises the
/// depthwise 1x1 conv it is: a = gamma / sqrt(var + eps), shift = B - mean a, s_w = |a| / 127
/// (1 when a = 0), w = round_half_even(a / s_w), b = round_half_even(shift / (s_x s_w))
/// saturated to +-2^30, M = s_x s_w / s_y; out = clamp(zp_y + ((x - zp_x) w + b) x M), the
/// accumulator saturated to int32.
struct BatchNormChannel {
  std::int32_t w = 0, b = 0;
  Multiplier m;
  BatchNormChannel(double gamma, double beta, double mean, double var, double eps, double s_x, double s_y);
  std::int8_t operator()(std::int8_t x, int zp_x, int zp_y) const;
};

/// int8 Softmax over one row (docs/functional.md "int8 execution"; TFLite's SoftmaxInt8LUT
/// table, PopulateSoftmaxUInt8LookupTable, with an integer reciprocal): e[k] =
/// floor(65535 exp(-s_x k) + 0.5) for k = max - x in 0..255, T = sum e, inv = round(2^46 / T)
/// (half up), y = saturate(zp_y + round_half_up(e inv / 2^38)). The output grid must have scale
/// 1/256 (throws std::invalid_argument otherwise). With mask_lowest (a Softmax behind an
/// attention mask, fused_attr::kMaskLowest), e = 0 for x = -128 unless the row's maximum is -128
/// (isa::Requant::mask_lowest).
struct SoftmaxRule {
  std::int32_t exp_table[256] = {};
  int zp_y = 0;
  bool mask_lowest = false;
  SoftmaxRule(const QuantGrid& x, const QuantGrid& y);
  void row(const std::int8_t* x, std::size_t d, std::int8_t* y) const;
};

/// int8 LayerNormalization (subtract_mean) / RMSNormalization over one row of D = gamma.size()
/// values with int32 statistics: v = q - zp_x, S = sum v (0 for RMS), Q = sum v^2,
/// root = floor(sqrt((D Q - S^2 + eps_term) 2^16)), eps_term = round(D^2 eps / s_x^2),
/// n = round_half_away((D v - S) 2^20 / root) (c / sqrt(variance) in Q12; 0 when root = 0),
/// then per column the BatchNormChannel of (gamma_j, beta_j, mean 0, var 1, eps 0) from the grid
/// 2^-12 to y.
struct NormRule {
  bool subtract_mean = true;
  int zp_x = 0, zp_y = 0;
  std::int32_t eps_term = 0;
  std::vector<BatchNormChannel> column;
  NormRule(const std::vector<float>& gamma, const std::vector<float>& beta, double eps, bool mean, const QuantGrid& x,
           const QuantGrid& y);
  void row(const std::int8_t* q, std::int8_t* y) const;
};

/// An element-wise function by its ONNX definition, in double: the node's op and attributes
/// (LeakyRelu alpha, HardSigmoid alpha/beta, Gelu approximate, Pow's constant exponent).
struct UnaryFunction {
  std::string op;
  double alpha = 0, beta = 0, exponent = 1;
  bool tanh_gelu = false;
  double operator()(double x) const;
};

/// One int8 element through `f` by the ONNX definition of the QDQ chain DequantizeLinear ->
/// f -> QuantizeLinear, whose intermediate tensors are float32: x = float32((q - zp_in) s_in),
/// y = float32(f(x)) with f in double (so correctly rounded but for double's own error), then
/// quantise(y, out) with the division in double. The two float32 roundings are ONNX's (the
/// tensor types), not an approximation: on exact real ties (e.g. LeakyRelu from 0.05 to 0.04,
/// positive codes q = 2 mod 4) they decide the side, as they do in ONNX Runtime.
std::int8_t apply(const UnaryFunction& f, std::int8_t q, const QuantGrid& in, const QuantGrid& out);

/// True for the element-wise ops the reference computes per element in double (the set the
/// NPU runs by table): LeakyRelu, Sigmoid, HardSigmoid, HardSwish, Tanh, Gelu, Erf, Exp, Sqrt,
/// Reciprocal, Abs, Neg, Pow.
bool is_unary_function(const std::string& op);

/// The function of node `n` (is_unary_function); Pow needs a constant scalar exponent in `g`.
/// Throws std::invalid_argument saying why not.
UnaryFunction unary_function(const Graph& g, const Node& n);

/// Layout ops whose int8 values move unchanged: Transpose, Split, Slice, nearest Resize /
/// Upsample, Gather at constant indices (ONNX Gather; ViT's class token x[:, 0]), Expand (GQA's
/// repeat of K/V heads) and Pad (constant, reflect, edge). Input and output share one grid.
/// Node `n` of `g` alone on an input "x" of `shape`, to run one node through the fp32 reference
/// (layout_move, id_view): `graph` holds "x" and `n`'s other inputs (g's tensors: the graph's
/// constants) and is named g.name + ":" + n.name + ":" + `tag`; `node` is `n` with input 0 renamed
/// "x". The caller adjusts the node, then adds it and the outputs.
struct SingleNode {
  Graph graph;
  Node node;
};
SingleNode single_node_on_x(const Graph& g, const Node& n, const std::vector<std::int64_t>& shape,
                            const std::string& tag);

bool is_layout_move(const std::string& op);

/// The int8 code a constant-mode Pad node `n` writes on `grid`: quantise(value, grid), value its
/// constant_value input (opset 11+) or its `value` attribute (0 by default, so the zero point):
/// TFLite's PAD / PADV2 on int8 and ONNX Runtime's QDQ Pad pad with the value on the tensor's
/// own grid. Throws std::invalid_argument when the value is not a constant scalar.
std::int8_t pad_code(const Graph& g, const Node& n, const QuantGrid& grid);

/// Outputs of layout node `n` on int8 values `x` of shape `shape` on `grid`: the reference
/// interpreter's fp32 kernel for the node run on the values as floats (exact: a move copies
/// values), a constant-mode Pad writing pad_code(g, n, grid). One vector per output of `n`
/// (empty for an absent one). Throws std::invalid_argument for a Gather whose indices are not a
/// constant, ConfigError as run_reference does.
std::vector<std::vector<std::int8_t>> layout_move(const Graph& g, const Node& n, const QuantGrid& grid,
                                                  const std::vector<std::int64_t>& shape,
                                                  const std::vector<std::int8_t>& x);

/// Whether node `n` passes integer ids (token ids) on as a view: Reshape, Flatten, Squeeze,
/// Unsqueeze, Identity, Dropout and Cast to int32/int64/uint32/uint64 (the same values), Slice and
/// Split (some of them). quantised_ids.cpp.
bool is_id_view(const Node& n);

/// Outputs of id view `n` (is_id_view) on ids `ids` of shape `shape`, one vector per output of
/// `n` (empty for an absent one); Slice / Split by the fp32 reference interpreter's kernel on the
/// ids as floats (exact below 2^24). Throws std::invalid_argument for another op or an id of
/// magnitude 2^24 or more, ConfigError as run_reference does.
std::vector<std::vector<std::int64_t>> id_view(const Graph& g, const Node& n, const std::vector<std::int64_t>& shape,
                                               const std::vector<std::int64_t>& ids);

/// The int8 token-embedding Gather (Gather(table [V, D...], ids, axis 0) by run-time ids): out
/// row k = table row ids[k], the int8 codes as they are (the output keeps the table's grid, so
/// no requantisation: the NPU's DMA of int8 rows). `table` holds V x `row` codes. Throws
/// std::invalid_argument naming the id and its element for an id outside [0, V).
std::vector<std::int8_t> gather_rows(const std::vector<std::int8_t>& table, std::int64_t rows, std::int64_t row,
                                     const std::vector<std::int64_t>& ids);

/// TensorFlow Lite's int8 bilinear resize (ResizeBilinearInteger) of NCHW codes `x` of
/// `shape` to out_h x out_w, with ONNX's coordinate_transformation_mode `ctm` (half_pixel,
/// pytorch_half_pixel, align_corners or asymmetric): 10 fractional bits per axis, the four
/// taps summed in int64, one rounding half away from zero (formula in quantised_resize.cpp and
/// docs/functional.md). Input and output share one grid. Throws std::invalid_argument for
/// another rank or mode.
std::vector<std::int8_t> resize_bilinear(const std::vector<std::int64_t>& shape, const std::vector<std::int8_t>& x,
                                         std::int64_t out_h, std::int64_t out_w, const std::string& ctm);

/// The axes ReduceMean node `n` reduces on an input of rank `rank`, normalised and sorted: its
/// `axes` attribute (opset < 18) or constant input (opset 18), all axes when none are given.
/// Throws std::invalid_argument for computed axes, an axis out of range or
/// noop_with_empty_axes=1 without axes.
std::vector<std::int64_t> reduce_axes(const Graph& g, const Node& n, std::size_t rank);

/// int8 ReduceMean of `x` (shape `shape`, row-major) over the sorted `axes` (any of them; the
/// output row-major over the kept axes, keepdims or not), n = the product of the reduced
/// dims, sum = the sum of the raw codes of one output: on the input's grid (out == in) TFLite's
/// integer average, average(sum, n); on a grid of its own TFLite's int8 MEAN (as a
/// GlobalAveragePool's): saturate(zp_y + scale_by(sum - n zp_x, quantize_multiplier(s_x / (s_y
/// n)))), the accumulator saturated to int32. Throws std::invalid_argument when n = 0.
std::vector<std::int8_t> reduce_mean(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& axes,
                                     const std::vector<std::int8_t>& x, const QuantGrid& in, const QuantGrid& out);

}  // namespace npu::compiler::qref
