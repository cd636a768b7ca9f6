// The taps of one POOL window, shared by the fp32 (pool.cpp) and int8 (int8_ops.cpp) data paths.
#pragma once

#include <cstdint>

#include "npu/isa/instruction.hpp"

namespace npu::hw::functional {

/// Calls f(i) for the element index i (into a [c, h_in, w_in] plane stack) of each tap of
/// output window (y, x) of channel ch that lies inside the input, rows then columns; taps in
/// the padding are skipped (the caller counts them where the op does: avg_pad).
template <class F>
void for_each_window_tap(const isa::PoolParams& p, std::uint64_t ch, std::uint64_t y, std::uint64_t x, F f) {
  const std::uint64_t hi = std::uint64_t(p.h_in), wi = std::uint64_t(p.w_in);
  for (int ky = 0; ky < p.kh; ++ky) {
    const long long iy = (long long)y * p.stride_h - p.pad_top + ky;
    if (iy < 0 || iy >= (long long)hi) continue;
    for (int kx = 0; kx < p.kw; ++kx) {
      const long long ix = (long long)x * p.stride_w - p.pad_left + kx;
      if (ix < 0 || ix >= (long long)wi) continue;
      f((ch * hi + std::uint64_t(iy)) * wi + std::uint64_t(ix));
    }
  }
}

}  // namespace npu::hw::functional
