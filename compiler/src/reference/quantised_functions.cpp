// The quantised reference's element-wise functions, by their ONNX definitions in double
// (quantised_rules.hpp; the layout moves are in quantised_layout.cpp).
#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

#include "reference/quantised_rules.hpp"

namespace npu::compiler::qref {

bool is_unary_function(const std::string& op) {
  static const std::set<std::string> kOps = {"LeakyRelu", "Sigmoid", "HardSigmoid", "HardSwish", "Tanh", "Gelu", "Erf",
                                             "Exp",       "Sqrt",    "Reciprocal",  "Abs",       "Neg",  "Pow"};
  return kOps.count(op) > 0;
}

UnaryFunction unary_function(const Graph& g, const Node& n) {
  UnaryFunction f;
  f.op = n.op_type;
  // ONNX attribute defaults (Operators.md): LeakyRelu alpha 0.01, HardSigmoid alpha 0.2, beta 0.5.
  if (f.op == "LeakyRelu") f.alpha = double(n.attr_float("alpha", 0.01f));
  if (f.op == "HardSigmoid") {
    f.alpha = double(n.attr_float("alpha", 0.2f));
    f.beta = double(n.attr_float("beta", 0.5f));
  }
  if (f.op == "Gelu") {
    const std::string approx = n.attr_string("approximate", "none");
    if (approx != "none" && approx != "tanh") throw std::invalid_argument("Gelu approximate='" + approx + "' is not 'none' or 'tanh'");
    f.tanh_gelu = approx == "tanh";
  }
  if (f.op == "Pow") {
    const Tensor* e = n.inputs.size() > 1 && g.has_tensor(n.inputs[1]) ? &g.tensor(n.inputs[1]) : nullptr;
    if (!e || !e->is_constant || e->elements() != 1)
      throw std::invalid_argument("Pow runs in int8 only with a constant scalar exponent");
    f.exponent = !e->float_data.empty() ? double(e->float_data[0]) : double(e->int_data.at(0));
  }
  return f;
}

double UnaryFunction::operator()(double x) const {
  constexpr double kSqrtHalf = 0.70710678118654752440, kSqrt2OverPi = 0.79788456080286535588;
  if (op == "LeakyRelu") return x >= 0 ? x : alpha * x;
  if (op == "Sigmoid") return 1.0 / (1.0 + std::exp(-x));
  if (op == "HardSigmoid") return std::max(0.0, std::min(1.0, alpha * x + beta));
  if (op == "HardSwish") return x * std::max(0.0, std::min(1.0, x / 6.0 + 0.5));  // alpha 1/6, beta 1/2
  if (op == "Tanh") return std::tanh(x);
  if (op == "Gelu")
    return tanh_gelu ? 0.5 * x * (1.0 + std::tanh(kSqrt2OverPi * (x + 0.044715 * x * x * x)))
                     : 0.5 * x * (1.0 + std::erf(x * kSqrtHalf));
  if (op == "Erf") return std::erf(x);
  if (op == "Exp") return std::exp(x);
  if (op == "Sqrt") return std::sqrt(x);  // NaN below 0: quantise() maps it to the zero point
  if (op == "Reciprocal") return 1.0 / x;
  if (op == "Abs") return std::fabs(x);
  if (op == "Neg") return -x;
  if (op == "Pow") return std::pow(x, exponent);
  throw std::invalid_argument("no element-wise function '" + op + "'");
}

std::int8_t apply(const UnaryFunction& f, std::int8_t q, const QuantGrid& in, const QuantGrid& out) {
  const float x = float(dequantise(q, in));  // DequantizeLinear's float32 output
  return quantise(double(float(f(double(x)))), out);  // the op's float32 output (inf stays inf)
}

}  // namespace npu::compiler::qref
