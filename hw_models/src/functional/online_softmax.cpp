// ACT op=softmax_online: one key block of a FlashAttention-style online softmax (ops.hpp).
// Dao et al. 2022, "FlashAttention", Algorithm 1 lines 9-12; Milakov & Gimelshein 2018,
// "Online normalizer calculation for softmax". The state stays fp32 whatever the program dtype.
#include <algorithm>
#include <cmath>
#include <limits>

#include "npu/hw/functional/ops.hpp"

namespace npu::hw::functional {

void softmax_online(const isa::ActParams& p, BackingStore& sram) {
  const std::uint64_t n = p.elems, rows = std::uint64_t(std::max(p.channels, 1)), per = n / rows;
  std::vector<float> x = sram.read_f32(p.in_addr, n);
  for (float& v : x) v *= p.alpha;  // the 1/sqrt(d) scale, before the mask as ONNX graphs apply it
  if (p.has_residual) {
    const std::vector<float> mask = sram.read_f32(p.residual_addr, n);
    for (std::uint64_t i = 0; i < n; ++i) x[i] += mask[i];
  }
  const bool first = p.beta != 0.0f;
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  std::vector<float> state = first ? std::vector<float>(3 * rows, 0.0f) : sram.read_f32(p.param_addr, 3 * rows);
  for (std::uint64_t r = 0; r < rows; ++r) {
    float* row = &x[r * per];
    const float m_old = first ? kNegInf : state[r];
    const float l_old = first ? 0.0f : state[rows + r];
    const float m_new = std::max(m_old, *std::max_element(row, row + per));
    float sum = 0.0f;
    for (std::uint64_t j = 0; j < per; ++j) {
      row[j] = m_new == kNegInf ? 0.0f : std::exp(row[j] - m_new);  // every score masked so far: nothing
      sum += row[j];
    }
    const float corr = m_new == kNegInf ? 1.0f : std::exp(m_old - m_new);  // e^-inf = 0 on a first block
    state[r] = m_new;
    state[rows + r] = l_old * corr + sum;
    state[2 * rows + r] = corr;
  }
  sram.write_f32(p.param_addr, state);
  sram.write_f32(p.out_addr, x);
}

}  // namespace npu::hw::functional
