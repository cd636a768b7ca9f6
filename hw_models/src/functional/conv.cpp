#include "npu/hw/functional/ops.hpp"

namespace npu::hw::functional {

void conv(const isa::ConvParams& p, BackingStore& sram) {
  const std::uint64_t ci_n = std::uint64_t(p.c_in), hi = std::uint64_t(p.h_in), wi = std::uint64_t(p.w_in);
  const std::uint64_t ho = std::uint64_t(p.h_out()), wo = std::uint64_t(p.w_out());
  const int cpg_in = p.c_in / p.group, cpg_out = p.c_out / p.group;
  std::vector<float> in = sram.read_f32(p.in_addr, ci_n * hi * wi);
  if (p.epilogue.has_in_scale) {
    const std::vector<float> s = sram.read_f32(p.epilogue.in_scale_addr, ci_n);
    for (std::uint64_t c = 0; c < ci_n; ++c)
      for (std::uint64_t k = 0; k < hi * wi; ++k) in[c * hi * wi + k] *= s[c];
  }
  const std::uint64_t taps = std::uint64_t(cpg_in) * p.kh * p.kw;
  const std::vector<float> w = sram.read_f32(p.w_addr, std::uint64_t(p.c_out) * taps);
  std::vector<float> out(std::uint64_t(p.c_out) * ho * wo, 0.0f);
  for (int co = 0; co < p.c_out; ++co) {
    const int ci0 = (co / cpg_out) * cpg_in;
    const float* wk = &w[std::uint64_t(co) * taps];
    for (std::uint64_t y = 0; y < ho; ++y)
      for (std::uint64_t x = 0; x < wo; ++x) {
        float acc = 0.0f;
        for (int ci = 0; ci < cpg_in; ++ci)
          for (int ky = 0; ky < p.kh; ++ky) {
            const long long iy = (long long)y * p.stride_h - p.pad_top + (long long)ky * p.dilation;
            if (iy < 0 || iy >= (long long)hi) continue;
            const float* row = &in[(std::uint64_t(ci0 + ci) * hi + std::uint64_t(iy)) * wi];
            const float* wr = wk + (std::uint64_t(ci) * p.kh + std::uint64_t(ky)) * p.kw;
            for (int kx = 0; kx < p.kw; ++kx) {
              const long long ix = (long long)x * p.stride_w - p.pad_left + (long long)kx * p.dilation;
              if (ix < 0 || ix >= (long long)wi) continue;
              acc += row[ix] * wr[kx];
            }
          }
        out[(std::uint64_t(co) * ho + y) * wo + x] = acc;
      }
  }
  epilogue(p.epilogue, std::uint64_t(p.c_out), ho * wo, true, out, sram);
  sram.write_f32(p.out_addr, out);
}

}  // namespace npu::hw::functional
