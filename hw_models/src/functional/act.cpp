#include "npu/hw/functional/ops.hpp"

#include <algorithm>
#include <cmath>

namespace npu::hw::functional {

namespace {

// ACT rope on `rows` rows of x, each heads of d elements; cs holds cos[d] then sin[d] per row.
std::vector<float> rope_rows(const std::vector<float>& x, const std::vector<float>& cs, std::uint64_t rows,
                             std::uint64_t d) {
  std::vector<float> y(x.size());
  const std::uint64_t per = x.size() / rows, half = d / 2;
  for (std::uint64_t r = 0; r < rows; ++r)
    for (std::uint64_t j = 0; j < per; ++j) {
      const std::uint64_t k = j % d, i = r * per + j;
      const float partner = k < half ? -x[i + half] : x[i - half];
      y[i] = x[i] * cs[r * 2 * d + k] + partner * cs[r * 2 * d + d + k];
    }
  return y;
}

}  // namespace

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
    case isa::ActOp::Rope:  // x cos + rotate_half(x) sin within each head of d = alpha (isa/instruction.hpp)
      x = rope_rows(x, sram.read_f32(p.param_addr, isa::act_param_elems(p.op, p.channels, n, p.alpha)), ch,
                    std::uint64_t(p.alpha));
      break;
    default:
      for (float& v : x) v = activate(p.op, v, p.alpha, p.beta);
  }
  sram.write_f32(p.out_addr, x);
}

}  // namespace npu::hw::functional
