// The quantised reference interpreter (docs/functional.md, "Quantised reference"): runs a
// quantised graph (Tensor::quant on its tensors: a QDQ/QLinear import or a post-training
// quantisation) node by node: integer ops (Conv/Gemm/MatMul, Add, Mul, Relu/Clip, pooling,
// BatchNormalization) in exact integer arithmetic -- int8 x int8 products accumulated with the
// int32 bias, requantised by TFLite's fixed-point multiplier and shift, plus the zero point,
// saturated -- and element-wise functions (Sigmoid, Tanh, HardSwish, ...) per element in double
// (dequantise, the ONNX function, quantise). It is independent code: it includes nothing of the
// compiler's back end (int8_lowering.hpp, lowering, codegen) nor npu/isa/cost/requant_math.hpp, and
// implements the documented rules itself (compiler/src/reference/quantised_rules.hpp), so
// comparing it with a simulated int8 program checks the back end's tables and rounding too.
//
//   const Graph g = load_model("tests/data/qdq_conv.onnx");
//   QuantisedTensorMap out = run_quantised_reference(g, {{"input", x}});
//   out.at("output").q;         // int8 values, row-major
//   out.at("output").real();    // dequantised, (q - zero_point) x scale
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "npu/compiler/ir/graph.hpp"

namespace npu::compiler {

/// A per-tensor int8 grid: real = (q - zero_point) x scale, q in [-128, 127] (a uint8 tensor
/// with zero point z is on the grid with z - 128: same reals, same range).
struct QuantGrid {
  double scale = 0;
  int zero_point = 0;
  bool operator==(const QuantGrid& o) const { return scale == o.scale && zero_point == o.zero_point; }
};

/// An int8 tensor on its grid: real = (q - grid.zero_point) x grid.scale.
struct QuantisedTensor {
  std::vector<std::int64_t> shape;
  std::vector<std::int8_t> q;  ///< row-major (NCHW for 4-D)
  QuantGrid grid;
  std::vector<float> real() const;  ///< dequantised values, float((q - zero_point) x scale)
};
using QuantisedTensorMap = std::map<std::string, QuantisedTensor>;

/// Runs `graph` in int8 on `inputs` (graph input name -> fp32 values, row-major; quantised on
/// the input's grid as ONNX QuantizeLinear does: round half to even, saturate) and returns every
/// graph output. A copy of the graph first gets the grids a QDQ model leaves implicit (a
/// Conv/Gemm output read only by a quantised Relu/Clip takes its grid; MaxPool and views take
/// their input's). Ops and rules, per node (docs/functional.md, "int8 execution"; MBQM is
/// TFLite's MultiplyByQuantizedMultiplier with its QuantizeMultiplier):
///  - Conv over NCHW or NCDHW (groups, strides, explicit pads, dilations; over NCDHW one int32
///    sum over every tap, depth included) and Gemm (transB, alpha = beta = 1) / MatMul with a
///    constant 2-D B: acc = bias_q[c] + sum (x - zp_x) w_q, out = clamp(zp_y + MBQM(acc, M[c]),
///    -128, 127), M[c] = s_x s_w[c] / s_y;
///  - Relu, Clip: clamp(zp_y + MBQM(x - zp_x, s_x / s_y), activation range on the y grid);
///  - Add, Mul: TFLite's int8 Add (left shift 20) and Mul, numpy broadcasting;
///  - BatchNormalization (inference form): TFLite's depthwise 1x1 conv rule;
///  - LeakyRelu, Sigmoid, HardSigmoid, HardSwish, Tanh, Gelu, Erf, Exp, Sqrt, Reciprocal, Abs,
///    Neg, Pow by a constant scalar: quantise(f(dequantise(x)), y grid), f the ONNX function in
///    double (NaN -> the zero point, +-inf saturate);
///  - MaxPool, GlobalMaxPool: max of raw values; AveragePool and a GlobalAveragePool on its
///    input's grid: sum of the in-bounds raw values / n rounded half away from zero (with
///    count_include_pad = 1 the taps inside the padded input count, the padding's as zp_x, and n
///    is their number); global pools over NCDHW pool the D x H x W values of a plane; a GlobalAveragePool on a grid of its own: clamp(zp_y + MBQM(sum (x - zp_x),
///    s_x / (s_y H W))); ReduceMean over any constant axes likewise (n = the reduced count in
///    place of H W);
///  - Reshape, Flatten, Squeeze, Unsqueeze, Identity, Dropout, Concat, Transpose, Split, Slice,
///    nearest Resize/Upsample, Gather at constant indices, Pad (reflect, edge; constant mode
///    pads with its value's code, the real 0 as the zero point): values moved unchanged (input
///    and output on the same grid);
///  - bilinear Resize/Upsample (half_pixel, pytorch_half_pixel, align_corners, asymmetric):
///    TFLite's ResizeBilinearInteger, 10 fractional bits, one rounding half away from zero
///    (input and output on the same grid).
/// Throws ConfigError naming the node for any other op, a tensor without a per-tensor int8
/// grid, weights that are not symmetric per output channel, grids that differ where an op moves
/// values, a missing or mis-sized input.
QuantisedTensorMap run_quantised_reference(const Graph& graph, const std::map<std::string, std::vector<float>>& inputs);

}  // namespace npu::compiler
