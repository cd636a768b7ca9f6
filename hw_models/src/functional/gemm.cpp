#include "npu/hw/functional/ops.hpp"

namespace npu::hw::functional {

void gemm(const isa::GemmParams& p, BackingStore& sram) {
  const std::uint64_t m = std::uint64_t(p.m), n = std::uint64_t(p.n), k = std::uint64_t(p.k);
  std::vector<float> a = sram.read_f32(p.a_addr, m * k);
  if (p.epilogue.has_in_scale) {
    const std::vector<float> s = sram.read_f32(p.epilogue.in_scale_addr, k);
    for (std::uint64_t i = 0; i < m; ++i)
      for (std::uint64_t j = 0; j < k; ++j) a[i * k + j] *= s[j];
  }
  const std::vector<float> b = sram.read_f32(p.b_addr, k * n);
  std::vector<float> out(m * n, 0.0f);
  // i-k-j order: each output element still accumulates over k in increasing order.
  for (std::uint64_t i = 0; i < m; ++i)
    for (std::uint64_t kk = 0; kk < k; ++kk) {
      const float av = a[i * k + kk];
      const float* br = &b[kk * n];
      float* o = &out[i * n];
      for (std::uint64_t j = 0; j < n; ++j) o[j] += av * br[j];
    }
  epilogue(p.epilogue, n, 1, false, out, sram);
  sram.write_f32(p.out_addr, out);
}

}  // namespace npu::hw::functional
