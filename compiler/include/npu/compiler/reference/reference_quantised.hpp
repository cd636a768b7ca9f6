// The quantised reference interpreter (docs/functional.md, "Quantised reference"): runs a
// quantised graph (Tensor::quant on its tensors: a QDQ/QLinear import or a post-training
// quantisation) node by node in exact integer arithmetic -- int8 x int8 products accumulated
// in int32 with the int32 bias, requantised by fixed-point multiplier and shift, plus the zero
// point, saturated -- with the rules of npu/isa/requant_math.hpp and the parameter derivations
// of npu/compiler/backend/lowering/int8/int8_lowering.hpp, which the NPU's int8 data path uses too. It knows nothing
// of tiling, fusion or the ISA, so comparing it with a simulated int8 program checks those.
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
#include "npu/compiler/backend/lowering/int8/int8_lowering.hpp"

namespace npu::compiler {

/// An int8 tensor on its grid: real = (q - grid.zero_point) x grid.scale.
struct QuantisedTensor {
  std::vector<std::int64_t> shape;
  std::vector<std::int8_t> q;  ///< row-major (NCHW for 4-D)
  Int8Grid grid;
  std::vector<float> real() const;  ///< dequantised values (compiler::dequantise)
};
using QuantisedTensorMap = std::map<std::string, QuantisedTensor>;

/// Runs `graph` in int8 on `inputs` (graph input name -> fp32 values, row-major; quantised on
/// the input's grid as ONNX QuantizeLinear does: round half to even, saturate) and returns every
/// graph output. A copy of the graph gets complete_quant() first. Ops and rules, per node:
///  - Conv (groups, strides, explicit pads, dilations) and Gemm (transB, alpha = beta = 1) /
///    MatMul with a constant 2-D B: acc = bias_q[c] + sum (x - zp_x) w_q, out = clamp(zp_y +
///    MultiplyByQuantizedMultiplier(acc, M[c]), -128, 127), M[c] = s_x s_w[c] / s_y;
///  - Relu, Clip: clamp(zp_y + MBQM(x - zp_x, s_x / s_y), activation range on the y grid);
///  - Add: TFLite's quantised Add (int8_lowering.hpp add_table), numpy broadcasting;
///  - MaxPool, GlobalMaxPool: max of raw values; AveragePool (count_include_pad = 0),
///    GlobalAveragePool: sum of the in-bounds raw values / n rounded half away from zero;
///    input and output on the same grid;
///  - Reshape, Flatten, Squeeze, Unsqueeze, Identity, Dropout, Concat: bytes moved unchanged
///    (input and output on the same grid).
/// Throws ConfigError naming the node for any other op, a tensor without a per-tensor int8
/// grid, weights that are not symmetric per output channel, grids that differ where an op moves
/// bytes, a missing or mis-sized input.
QuantisedTensorMap run_quantised_reference(const Graph& graph, const std::map<std::string, std::vector<float>>& inputs);

}  // namespace npu::compiler
