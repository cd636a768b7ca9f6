#include "npu/hw/functional/ops.hpp"

#include <algorithm>
#include <cmath>

namespace npu::hw::functional {

float activate(isa::ActOp op, float x, float alpha, float beta) {
  using isa::ActOp;
  switch (op) {
    case ActOp::None:
    case ActOp::Identity: return x;
    case ActOp::Relu: return x > 0.0f ? x : 0.0f;
    case ActOp::Clip: return std::min(std::max(x, alpha), beta);
    case ActOp::LeakyRelu: return x >= 0.0f ? x : alpha * x;
    case ActOp::Sigmoid: return 1.0f / (1.0f + std::exp(-x));
    case ActOp::Silu: return x / (1.0f + std::exp(-x));
    case ActOp::HardSigmoid: return std::max(0.0f, std::min(1.0f, alpha * x + beta));
    // ONNX HardSwish: x * max(0, min(1, x/6 + 1/2)).
    case ActOp::HardSwish: return x * std::max(0.0f, std::min(1.0f, x / 6.0f + 0.5f));
    case ActOp::Erf: return std::erf(x);
    case ActOp::Exp: return std::exp(x);
    case ActOp::Sqrt: return std::sqrt(x);
    case ActOp::Reciprocal: return 1.0f / x;
    case ActOp::Tanh: return std::tanh(x);
    case ActOp::Gelu: return 0.5f * x * (1.0f + std::erf(x / std::sqrt(2.0f)));
    // ONNX Gelu approximate="tanh" (Hendrycks & Gimpel 2016, eq. for the tanh approximation).
    case ActOp::GeluTanh: return 0.5f * x * (1.0f + std::tanh(0.7978845608028654f * (x + 0.044715f * x * x * x)));
    case ActOp::Abs: return std::fabs(x);
    case ActOp::Neg: return -x;
    case ActOp::Pow: return std::pow(x, alpha);
    case ActOp::Log: return std::log(x);
    case ActOp::Floor: return std::floor(x);
    case ActOp::Ceil: return std::ceil(x);
    case ActOp::Not: return x == 0.0f ? 1.0f : 0.0f;
    case ActOp::Trunc: return std::trunc(x);
    case ActOp::ToBool: return x != 0.0f ? 1.0f : 0.0f;
    case ActOp::ScaleShift:
    case ActOp::Softmax:
    case ActOp::LayerNorm:
    case ActOp::RmsNorm:
    case ActOp::SoftmaxOnline:
    case ActOp::Rope: break;  // not element-wise: act() handles them
  }
  return x;
}

void epilogue(const isa::Epilogue& ep, std::uint64_t channels, std::uint64_t per_channel, bool channel_major,
              std::vector<float>& out, const BackingStore& sram) {
  if (ep.empty()) return;
  auto chan = [&](std::uint64_t i) { return channel_major ? i / per_channel : i % channels; };
  if (ep.has_bias) {
    const std::vector<float> b = sram.read_f32(ep.bias_addr, channels);
    for (std::uint64_t i = 0; i < out.size(); ++i) out[i] += b[chan(i)];
  }
  if (ep.has_scale_shift) {
    const std::vector<float> ss = sram.read_f32(ep.scale_shift_addr, 2 * channels);
    for (std::uint64_t i = 0; i < out.size(); ++i) out[i] = out[i] * ss[chan(i)] + ss[channels + chan(i)];
  }
  if (ep.has_residual) {
    const std::vector<float> r = sram.read_f32(ep.residual_addr, out.size());
    for (std::uint64_t i = 0; i < out.size(); ++i) out[i] += r[i];
  }
  if (ep.has_mul) {
    const std::vector<float> m = sram.read_f32(ep.mul_addr, out.size());
    for (std::uint64_t i = 0; i < out.size(); ++i) out[i] *= m[i];
  }
  if (ep.act != isa::ActOp::None)
    for (float& v : out) v = activate(ep.act, v, ep.act_alpha, ep.act_beta);
}

}  // namespace npu::hw::functional
