// int8 rules by table (int8_lowering.hpp): element-wise functions as a 256-entry lookup table,
// and the int8 Mul.
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "npu/compiler/backend/lowering/int8/int8_lowering.hpp"
#include "npu/compiler/reference/reference_interpreter.hpp"
#include "npu/isa/cost/requant_math.hpp"

namespace npu::compiler {

bool has_int8_lut(const std::string& op_type) {
  static const std::set<std::string> kOps = {"LeakyRelu", "Sigmoid", "HardSigmoid", "HardSwish", "Tanh", "Gelu",
                                             "Erf",       "Exp",     "Sqrt",        "Reciprocal", "Abs", "Neg",
                                             "Pow"};
  return kOps.count(op_type) > 0;
}

std::vector<std::int8_t> int8_lut(const Graph& g, const Node& n, const Int8Grid& in, const Int8Grid& out) {
  // The node alone, on a [256] input holding every int8 value's real, run by the fp32 reference
  // interpreter: so the table is the ONNX definition of the op with the node's attributes.
  Graph one;
  one.name = g.name + ":" + n.name + ":int8-table";
  Tensor x;
  x.name = "x";
  x.shape = {256};
  one.tensors["x"] = x;
  Tensor y = x;
  y.name = "y";
  one.tensors["y"] = y;
  Node m = n;
  m.inputs.at(0) = "x";
  m.outputs = {"y"};
  for (std::size_t i = 1; i < m.inputs.size(); ++i)
    if (!m.inputs[i].empty()) one.tensors[m.inputs[i]] = g.tensor(m.inputs[i]);
  one.nodes = {m};
  one.inputs = {"x"};
  one.outputs = {"y"};
  RefTensor xs;
  xs.shape = {256};
  for (int q = -128; q <= 127; ++q) xs.f.push_back(dequantise(std::int8_t(q), in));
  const RefTensorMap r = run_reference(one, {{"x", xs}});
  std::vector<std::int8_t> lut;
  for (float v : r.at("y").f) {
    // Not finite (Sqrt or Log of a negative, Reciprocal of 0): +inf saturates to 127, -inf to
    // -128, NaN takes the zero point (the real 0), never an undefined conversion.
    if (std::isnan(v)) v = 0.0f;
    else if (std::isinf(v)) v = v > 0 ? std::numeric_limits<float>::max() : std::numeric_limits<float>::lowest();
    lut.push_back(quantise(v, out));
  }
  return lut;
}

std::vector<std::int32_t> mul_table(double s_a, double s_b, double s_out) {
  std::int32_t m = 0;
  int s = 0;
  isa::quantize_multiplier(s_a * s_b / s_out, m, s);
  return {m, s};
}

}  // namespace npu::compiler
