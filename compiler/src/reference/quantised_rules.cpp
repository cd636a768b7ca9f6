// The quantised reference's integer rules (quantised_rules.hpp): TFLite's fixed-point
// requantisation, ONNX QuantizeLinear, TFLite's int8 Add / Mul / AveragePool and the
// BatchNormalization-as-depthwise-conv rule, written from their definitions.
#include "reference/quantised_rules.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace npu::compiler::qref {

namespace {
constexpr std::int64_t kInt32Min = std::numeric_limits<std::int32_t>::min();
constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();

std::int32_t saturate32(std::int64_t v) { return std::int32_t(std::clamp(v, kInt32Min, kInt32Max)); }
}  // namespace

Multiplier quantize_multiplier(double real) {
  if (!(real >= 0) || !std::isfinite(real)) throw std::invalid_argument("quantised reference: multiplier must be finite and >= 0");
  Multiplier r;
  if (real == 0) return r;
  int e = 0;
  const double q = std::frexp(real, &e);                       // real = q 2^e, q in [0.5, 1)
  std::int64_t fixed = std::int64_t(std::round(q * 2147483648.0));  // TfLiteRound: half away from zero
  if (fixed == (std::int64_t(1) << 31)) {
    fixed /= 2;
    ++e;
  }
  if (e < -31) return r;  // below 2^-32: the product rounds to 0 anyway
  if (e > 30) {           // TFLite saturates the largest multipliers
    e = 30;
    fixed = kInt32Max;
  }
  r.m = std::int32_t(fixed);
  r.shift = e;
  return r;
}

std::int32_t doubling_high_mul(std::int32_t a, std::int32_t b) {
  if (a == b && a == std::int32_t(kInt32Min)) return std::int32_t(kInt32Max);
  const std::int64_t ab = std::int64_t(a) * std::int64_t(b);
  const std::int64_t nudge = ab >= 0 ? (std::int64_t(1) << 30) : 1 - (std::int64_t(1) << 30);
  return std::int32_t((ab + nudge) / (std::int64_t(1) << 31));  // C++ division truncates toward 0
}

std::int32_t divide_by_pot(std::int32_t x, int e) {
  if (e < 0 || e > 31) throw std::invalid_argument("quantised reference: shift out of [0, 31]");
  const std::int64_t mask = (std::int64_t(1) << e) - 1;
  const std::int64_t rem = std::int64_t(x) & mask;
  const std::int64_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return std::int32_t((std::int64_t(x) >> e) + (rem > threshold ? 1 : 0));  // >>: arithmetic (floor)
}

std::int32_t scale_by(std::int32_t x, const Multiplier& M) {
  const int left = M.shift > 0 ? M.shift : 0, right = M.shift > 0 ? 0 : -M.shift;
  return divide_by_pot(doubling_high_mul(saturate32(std::int64_t(x) * (std::int64_t(1) << left)), M.m), right);
}

std::int8_t saturate(std::int64_t v, int lo, int hi) { return std::int8_t(std::clamp<std::int64_t>(v, lo, hi)); }

std::int8_t quantise(double x, const QuantGrid& g) {
  if (std::isnan(x)) return std::int8_t(g.zero_point);
  if (std::isinf(x)) return x > 0 ? std::int8_t(127) : std::int8_t(-128);
  const double r = std::nearbyint(x / g.scale);  // default rounding mode: half to even
  return std::int8_t(std::clamp(r + g.zero_point, -128.0, 127.0));
}

double dequantise(std::int8_t q, const QuantGrid& g) { return double(int(q) - g.zero_point) * g.scale; }

std::optional<QuantGrid> grid_of(const Tensor& t) {
  if (!t.quant || t.quant->scale.size() != 1 || t.quant->zero_point.size() != 1) return std::nullopt;
  QuantGrid g;
  g.scale = double(t.quant->scale[0]);
  g.zero_point = int(t.quant->zero_point[0]) - (t.quant->type == ElemType::Uint8 ? 128 : 0);
  if (!(g.scale > 0) || g.zero_point < -128 || g.zero_point > 127) return std::nullopt;
  return g;
}

void infer_implicit_grids(Graph& g) {
  auto is_view = [](const std::string& op) {
    return op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze" || op == "Identity" ||
           op == "Dropout";
  };
  for (const Node& node : g.nodes) {
    if (node.outputs.empty() || !g.has_tensor(node.outputs[0]) || g.tensor(node.outputs[0]).quant) continue;
    const std::string& out = node.outputs[0];
    const std::string& op = node.op_type;
    if (op == "Conv" || op == "Gemm" || op == "MatMul") {
      const bool graph_output = std::find(g.outputs.begin(), g.outputs.end(), out) != g.outputs.end();
      const auto readers = g.consumers(out);
      if (graph_output || readers.size() != 1) continue;
      const Node& r = g.nodes[readers[0]];
      if ((r.op_type == "Relu" || r.op_type == "Clip") && !r.outputs.empty() && g.has_tensor(r.outputs[0]) &&
          g.tensor(r.outputs[0]).quant)
        g.tensor(out).quant = g.tensor(r.outputs[0]).quant;
    } else if ((op == "MaxPool" || op == "GlobalMaxPool" || is_view(op)) && !node.inputs.empty() &&
               g.has_tensor(node.inputs[0]) && g.tensor(node.inputs[0]).quant) {
      g.tensor(out).quant = g.tensor(node.inputs[0]).quant;
    }
  }
}

bool activation_range(const std::string& op, double min, double max, const QuantGrid& y, int& lo, int& hi) {
  lo = -128;
  hi = 127;
  if (op == "Relu") {
    lo = std::max(-128, y.zero_point);
    return true;
  }
  auto q = [&](double v) { return std::clamp(double(y.zero_point) + std::round(v / y.scale), -128.0, 127.0); };
  lo = int(q(min));
  hi = int(q(max));
  return lo <= hi;
}

AddRule::AddRule(const QuantGrid& ga, const QuantGrid& gb, const QuantGrid& gy)
    : zp_a(ga.zero_point), zp_b(gb.zero_point), zp_y(gy.zero_point) {
  const double twice_max = 2 * std::max(ga.scale, gb.scale);
  a = quantize_multiplier(ga.scale / twice_max);
  b = quantize_multiplier(gb.scale / twice_max);
  out = quantize_multiplier(twice_max / (double(1 << 20) * gy.scale));
}

std::int8_t AddRule::operator()(std::int8_t qa, std::int8_t qb) const {
  const std::int32_t sa = scale_by((std::int32_t(qa) - zp_a) * (1 << 20), a);
  const std::int32_t sb = scale_by((std::int32_t(qb) - zp_b) * (1 << 20), b);
  return saturate(std::int64_t(zp_y) + scale_by(saturate32(std::int64_t(sa) + sb), out));
}

MulRule::MulRule(const QuantGrid& ga, const QuantGrid& gb, const QuantGrid& gy)
    : m(quantize_multiplier(ga.scale * gb.scale / gy.scale)), zp_a(ga.zero_point), zp_b(gb.zero_point),
      zp_y(gy.zero_point) {}

std::int8_t MulRule::operator()(std::int8_t qa, std::int8_t qb) const {
  return saturate(std::int64_t(zp_y) + scale_by((std::int32_t(qa) - zp_a) * (std::int32_t(qb) - zp_b), m));
}

std::int8_t average(std::int64_t sum, std::int64_t n) {
  const std::int64_t r = sum > 0 ? (sum + n / 2) / n : (sum - n / 2) / n;
  return saturate(r);
}

BatchNormChannel::BatchNormChannel(double gamma, double beta, double mean, double var, double eps, double s_x,
                                   double s_y) {
  const double a = gamma / std::sqrt(var + eps);
  const double shift = beta - mean * a;
  const double s_w = a == 0 ? 1.0 : std::fabs(a) / 127.0;
  w = std::int32_t(std::nearbyint(a / s_w));
  const double limit = double(std::int64_t(1) << 30);
  b = std::int32_t(std::clamp(std::nearbyint(shift / (s_x * s_w)), -limit, limit));
  m = quantize_multiplier(s_x * s_w / s_y);
}

std::int8_t BatchNormChannel::operator()(std::int8_t x, int zp_x, int zp_y) const {
  const std::int32_t acc = saturate32((std::int64_t(x) - zp_x) * w + b);
  return saturate(std::int64_t(zp_y) + scale_by(acc, m));
}

}  // namespace npu::compiler::qref
