#include "npu/hw/functional/ops.hpp"

#include <algorithm>

namespace npu::hw::functional {

// Loop order: for each output channel, taps (ci, ky, kx) outer and output pixels inner, so the
// inner loop walks an input row with a constant weight (vectorisable for stride 1). Each
// output element still accumulates its taps in increasing (ci, ky, kx) order.
void conv(const isa::ConvParams& p, BackingStore& sram) {
  const std::uint64_t ci_n = std::uint64_t(p.c_in), hi = std::uint64_t(p.h_in), wi = std::uint64_t(p.w_in);
  const long long ho = p.h_out(), wo = p.w_out();
  const int cpg_in = p.c_in / p.group, cpg_out = p.c_out / p.group;
  std::vector<float> in = sram.read_f32(p.in_addr, ci_n * hi * wi);
  if (p.epilogue.has_in_scale) {
    const std::vector<float> s = sram.read_f32(p.epilogue.in_scale_addr, ci_n);
    for (std::uint64_t c = 0; c < ci_n; ++c)
      for (std::uint64_t k = 0; k < hi * wi; ++k) in[c * hi * wi + k] *= s[c];
  }
  const std::uint64_t taps = std::uint64_t(cpg_in) * p.kh * p.kw;
  const std::vector<float> w = sram.read_f32(p.w_addr, std::uint64_t(p.c_out) * taps);
  // acc_in: continue the previous input-channel groups' sums, so each output element still
  // accumulates its taps in increasing ci order (the split layer's result is bit-identical).
  std::vector<float> out = p.acc_in ? sram.read_f32(p.acc_in_addr, std::uint64_t(p.c_out) * std::uint64_t(ho * wo))
                                    : std::vector<float>(std::uint64_t(p.c_out) * std::uint64_t(ho * wo), 0.0f);
  for (int co = 0; co < p.c_out; ++co) {
    const int ci0 = (co / cpg_out) * cpg_in;
    float* o = &out[std::uint64_t(co) * std::uint64_t(ho * wo)];
    for (int ci = 0; ci < cpg_in; ++ci)
      for (int ky = 0; ky < p.kh; ++ky)
        for (int kx = 0; kx < p.kw; ++kx) {
          const float wv = w[std::uint64_t(co) * taps + (std::uint64_t(ci) * p.kh + std::uint64_t(ky)) * p.kw + std::uint64_t(kx)];
          // Output columns x whose input column x*stride - pad_left + kx*dilation is inside [0, wi).
          const long long off = (long long)kx * p.dilation - p.pad_left;
          const long long x0 = off >= 0 ? 0 : (-off + p.stride_w - 1) / p.stride_w;
          const long long x1 = std::min<long long>(wo, off >= (long long)wi ? 0 : ((long long)wi - 1 - off) / p.stride_w + 1);
          if (x0 >= x1) continue;
          for (long long y = 0; y < ho; ++y) {
            const long long iy = y * p.stride_h - p.pad_top + (long long)ky * p.dilation;
            if (iy < 0 || iy >= (long long)hi) continue;
            const float* row = &in[(std::uint64_t(ci0 + ci) * hi + std::uint64_t(iy)) * wi];
            float* orow = o + y * wo;
            if (p.stride_w == 1) {
              for (long long x = x0; x < x1; ++x) orow[x] += wv * row[x + off];
            } else {
              for (long long x = x0; x < x1; ++x) orow[x] += wv * row[x * p.stride_w + off];
            }
          }
        }
  }
  if (p.acc_out) {  // partial sums: the epilogue waits for the last group
    sram.write_f32(p.acc_out_addr, out);
    return;
  }
  epilogue(p.epilogue, std::uint64_t(p.c_out), std::uint64_t(ho * wo), true, out, sram);
  sram.write_f32(p.out_addr, out);
}

}  // namespace npu::hw::functional
