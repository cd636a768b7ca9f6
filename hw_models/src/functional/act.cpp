#include "npu/hw/functional/ops.hpp"

#include <algorithm>
#include <cmath>

namespace npu::hw::functional {

void act(const isa::ActParams& p, BackingStore& sram) {
  if (p.op == isa::ActOp::SoftmaxOnline) return softmax_online(p, sram);  // alpha scales `in` before `res`
  const std::uint64_t n = p.elems;
  std::vector<float> x = sram.read_f32(p.in_addr, n);
  if (p.has_residual) {
    const std::vector<float> r = sram.read_f32(p.residual_addr, n);
    for (std::uint64_t i = 0; i < n; ++i) x[i] += r[i];
  }
  const std::uint64_t ch = std::uint64_t(std::max(p.channels, 1)), per = n / ch;
  switch (p.op) {
    case isa::ActOp::ScaleShift: {
      const std::vector<float> ss = sram.read_f32(p.param_addr, 2 * ch);
      for (std::uint64_t i = 0; i < n; ++i) x[i] = x[i] * ss[i / per] + ss[ch + i / per];
      break;
    }
    case isa::ActOp::Softmax:
      for (std::uint64_t r = 0; r < ch; ++r) {
        float* row = &x[r * per];
        const float mx = *std::max_element(row, row + per);
        float sum = 0.0f;
        for (std::uint64_t j = 0; j < per; ++j) sum += (row[j] = std::exp(row[j] - mx));
        for (std::uint64_t j = 0; j < per; ++j) row[j] /= sum;
      }
      break;
    case isa::ActOp::LayerNorm: {
      const std::vector<float> gb = sram.read_f32(p.param_addr, 2 * per);
      for (std::uint64_t r = 0; r < ch; ++r) {
        float* row = &x[r * per];
        float mean = 0.0f, var = 0.0f;
        for (std::uint64_t j = 0; j < per; ++j) mean += row[j];
        mean /= float(per);
        for (std::uint64_t j = 0; j < per; ++j) var += (row[j] - mean) * (row[j] - mean);
        var /= float(per);
        const float inv = 1.0f / std::sqrt(var + p.alpha);
        for (std::uint64_t j = 0; j < per; ++j) row[j] = (row[j] - mean) * inv * gb[j] + gb[per + j];
      }
      break;
    }
    case isa::ActOp::RmsNorm: {  // x / sqrt(mean(x^2) + eps) * gamma[j] (ONNX RMSNormalization)
      const std::vector<float> g = sram.read_f32(p.param_addr, per);
      for (std::uint64_t r = 0; r < ch; ++r) {
        float* row = &x[r * per];
        float ms = 0.0f;
        for (std::uint64_t j = 0; j < per; ++j) ms += row[j] * row[j];
        const float inv = 1.0f / std::sqrt(ms / float(per) + p.alpha);
        for (std::uint64_t j = 0; j < per; ++j) row[j] = row[j] * inv * g[j];
      }
      break;
    }
    default:
      for (float& v : x) v = activate(p.op, v, p.alpha, p.beta);
  }
  sram.write_f32(p.out_addr, x);
}

}  // namespace npu::hw::functional
