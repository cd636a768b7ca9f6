// int8 execution of quantised models (docs/functional.md, "int8 execution"): when the hardware
// computes in int8 (mac_array.dtype: int8) and the graph's tensors carry Tensor::quant (a QDQ
// or QLinear import, or a post-training quantisation pass), every NPU layer gets the integer
// parameters of its instruction -- zero points and clamp bounds (isa::Requant immediates), the
// requantisation table (int32 multiplier/shift pairs by npu::isa::quantize_multiplier) and the
// int32 bias -- and the DDR image holds int8 activations and weights. The quantised reference
// interpreter (reference_quantised.hpp) uses the same derivations, so both round alike.
//
// The contract on Tensor::quant: activations per tensor, int8 or uint8 (uint8 with zero point z
// is the int8 grid with z - 128: same reals, same range); weights symmetric (zero point 0), per
// output channel (Conv axis 0; Gemm transB=1 axis 0; MatMul / Gemm transB=0 axis 1) or per
// tensor; bias float (quantised here with scale s_in x s_w[c], round half to even) or int32
// dequantised by the importer (then exact).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "npu/compiler/ir/graph.hpp"
#include "npu/compiler/backend/lowering/lowering.hpp"
#include "npu/isa/instruction.hpp"

namespace npu::compiler {

/// True when any tensor of `g` carries Tensor::quant.
bool is_quantised(const Graph& g);

/// Completes the activation quantisation of a quantised graph in place, where the model leaves
/// a tensor between two quantised ones unannotated (returns how many it annotated):
///  - the output of a Conv / Gemm / MatMul read only by a Relu or Clip whose output is quantised
///    takes that output's parameters (ORT's quantiser drops the Q/DQ pair between Conv and Relu;
///    Relu and Clip on that grid are exact clamps, so the fused and unfused results agree);
///  - outputs of MaxPool, GlobalMaxPool and views (Reshape, Flatten, Squeeze, Unsqueeze,
///    Identity, Dropout) take their input's (they move values without changing them).
int complete_quant(Graph& g);

/// A tensor's per-tensor int8 grid: real = (q - zero_point) x scale, q in [-128, 127].
struct Int8Grid {
  double scale = 0;
  int zero_point = 0;
  bool operator==(const Int8Grid& o) const { return scale == o.scale && zero_point == o.zero_point; }
};

/// The int8 grid of activation `t` (a uint8 zero point z becomes z - 128); nullopt when `t` has
/// no quant, or several scales.
std::optional<Int8Grid> activation_grid(const Tensor& t);

/// x quantised on grid g: saturate(round_half_even(x / scale) + zero_point) (ONNX QuantizeLinear).
std::int8_t quantise(float x, const Int8Grid& g);
/// (q - zero_point) x scale, in float (ONNX DequantizeLinear).
float dequantise(std::int8_t q, const Int8Grid& g);

/// Per output channel scales of weight tensor `w` of a Conv (axis 0), Gemm transB=1 (axis 0) or
/// MatMul / Gemm transB=0 (axis 1) with `channels` output channels; "" in `problem` or why not
/// (no quant, a non-zero zero point, another axis).
std::vector<double> weight_scales(const Tensor& w, int out_axis, std::int64_t channels, std::string& problem);

/// Weights quantised with their per-channel scales (zero point 0), in the tensor's layout.
std::vector<std::int8_t> quantise_weights(const Tensor& w, int out_axis, const std::vector<double>& scales);

/// The integer parameters of one NPU layer.
struct Int8Layer {
  isa::Requant imm;                 ///< zero points and clamp (addr: codegen)
  std::vector<std::int32_t> table;  ///< requantisation table (isa::Requant layout); empty: none
  std::vector<std::int32_t> bias;   ///< Conv/Gemm int32 bias (empty: no bias)
  std::vector<std::int32_t> scale_shift;  ///< ACT scale_shift: int32 w[C] then b[C] (its `param`)
  std::string problem;              ///< why the layer has no int8 lowering ("" ok)
};

/// Derives the integer parameters of `L` from the graph's quantisation (lowered layer after
/// complete_quant). Never throws for a layer it cannot lower: `problem` says why.
Int8Layer int8_layer(const Graph& g, const LayerSpec& L);

/// int8 rule of an unfolded BatchNormalization (inference form), quantised as TFLite quantises
/// the depthwise 1x1 conv it is: per channel c, a = gamma / sqrt(var + eps) and
/// beta' = B - mean x a (as the fp32 scale/shift); weight scale s_w = |a| / 127 (1 when a = 0),
/// w = round(a / s_w) (so +-127 or 0), b = round(beta' / (s_in s_w)) (half to even, saturated to
/// +-2^30 so that the accumulator cannot overflow), M = s_in s_w / s_out as a
/// (multiplier, shift) pair. Output: clamp(zp_out + MBQM((x - zp_in) w + b, M))
/// (isa::scale_shift_acc, isa::requantize). Shared by the DDR image and the quantised reference.
struct Int8ScaleShift {
  std::vector<std::int32_t> w, b;   ///< per channel
  std::vector<std::int32_t> pairs;  ///< (multiplier, shift) per channel, isa::Requant layout
};
/// Throws std::invalid_argument naming the node when its parameters are not constants of C
/// values each.
Int8ScaleShift batchnorm_int8(const Graph& g, const Node& bn, const Int8Grid& in, const Int8Grid& out);

/// GlobalAveragePool or ReduceMean (a global pool over its reduced trailing axes) with an output
/// grid of its own (TFLite's int8 MEAN): the one (multiplier, shift) pair of M = s_in / (s_out x
/// plane), plane = H x W (the reduced element count); out = clamp(zp_out +
/// MBQM(sum (x - zp_in), M)). On one grid (s_in = s_out, same zero point) the pool instead
/// divides the raw sum (avg_int8), with no table.
std::vector<std::int32_t> global_avg_table(double s_in, double s_out, std::int64_t plane);

/// Element-wise ONNX ops that run in int8 through a 256-entry lookup table (LeakyRelu, Sigmoid,
/// HardSigmoid, HardSwish, Tanh, Gelu, Erf, Exp, Sqrt, Reciprocal, Abs, Neg, and Pow by a
/// constant exponent), as TFLite runs its int8 Logistic and Tanh. Relu and Clip rescale instead
/// (activation_clamp).
bool has_int8_lut(const std::string& op_type);

/// The table of unary node `n` (an op of has_int8_lut) from grid `in` to grid `out`: entry
/// q + 128 = quantise(f(dequantise(q, in)), out), f the fp32 reference interpreter's kernel
/// for the node (its attributes and constant inputs included); a NaN result maps to the zero
/// point, +-inf saturate. Shared by the DDR image and the quantised reference, so both use the
/// same bytes. Throws ConfigError as run_reference does.
std::vector<std::int8_t> int8_lut(const Graph& g, const Node& n, const Int8Grid& in, const Int8Grid& out);

/// TFLite's int8 Mul: the one (multiplier, shift) pair of M = s_a s_b / s_out; out =
/// clamp(zp_out + MBQM((a - zp_a)(b - zp_b), M)).
std::vector<std::int32_t> mul_table(double s_a, double s_b, double s_out);

/// TFLite's quantised Add table (reference_integer_ops/add.h; Prepare of kernels/add.cc):
/// left_shift 20, a and b rescaled by s_a / (2 max(s_a, s_b)) and s_b / (2 max(s_a, s_b)),
/// the sum by 2 max(s_a, s_b) / (2^20 s_out); as isa::Requant's 7-word ELTWISE table.
std::vector<std::int32_t> add_table(double s_a, double s_b, double s_out);

/// int8 Softmax exp table, TFLite's PopulateSoftmaxUInt8LookupTable (optimized_ops.h, used by
/// SoftmaxInt8LUT) in double: e[k] = floor(exp(-s_in k) x 65535 + 0.5), k = max - x in 0..255.
std::vector<std::int32_t> softmax_exp_table(double s_in);

/// int8 LayerNormalization / RMSNormalization parameters (docs/functional.md "int8 execution"):
/// the normalised value n in Q12 (scale 2^-12) meets gamma_j and beta_j as the depthwise 1x1
/// rule of batchnorm_int8: s_w = |gamma_j| / 127 (1 when 0), w_j = round(gamma_j / s_w),
/// b_j = round(beta_j / (2^-12 s_w)) saturated to +-2^30, pair j of M = 2^-12 s_w / s_out.
/// table = {eps_term, 0, pairs...}, eps_term = round(D^2 eps / s_in^2) saturated to int32.
/// Throws std::invalid_argument when scale / B are not constants of D (or 1) values.
struct Int8Norm {
  std::vector<std::int32_t> w, b, table;
};
Int8Norm norm_int8(const Graph& g, const Node& n, const Int8Grid& in, const Int8Grid& out, std::int64_t d);

/// The int8 rule of a GATHER layer (a token embedding: gather LOADs of table rows by run-time
/// ids, codegen/gather.cpp): the table is stored int8 on its per-tensor grid and the selected
/// rows move as they are (the identity ACT, no requantisation), so the output must be on the
/// table's grid (post-training quantisation shares it, range_gather_tables); r.problem says why
/// not (no grid, or two different grids). Source: int8_gather.cpp.
void gather_layer_int8(const Graph& g, const LayerSpec& L, Int8Layer& r);

/// The int8 parameters of a row-wise ACT layer `L` (Softmax, LayerNorm, RMSNorm) from input grid
/// `x` to output grid `y`; r.problem says why not (a fused residual, rows over
/// isa::kInt8RowMax, a Softmax output grid other than scale 1/256).
void rowwise_layer_int8(const Graph& g, const LayerSpec& L, const Node* anchor, const Int8Grid& x, const Int8Grid& y,
                        Int8Layer& r);

/// TFLite CalculateActivationRangeQuantized: the int8 clamp of a fused activation on grid
/// `out`: none [-128, 127], relu [max(-128, zp), 127], clip(lo, hi) [max(-128, zp +
/// round(lo / s)), min(127, zp + round(hi / s))] (round half away from zero). Returns false for
/// another activation.
bool activation_clamp(isa::ActOp act, float lo, float hi, const Int8Grid& out, int& clamp_min, int& clamp_max);

}  // namespace npu::compiler
