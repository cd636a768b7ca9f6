#include "npu/hw/functional/ops.hpp"

#include <limits>

#include "pool_window.hpp"

namespace npu::hw::functional {

void pool(const isa::PoolParams& p, BackingStore& sram) {
  const std::uint64_t c = std::uint64_t(p.c), hi = std::uint64_t(p.h_in), wi = std::uint64_t(p.w_in);
  const std::vector<float> in = sram.read_f32(p.in_addr, c * hi * wi);
  if (p.op == isa::PoolOp::GlobalAvg) {
    std::vector<float> out(c);
    for (std::uint64_t ch = 0; ch < c; ++ch) {
      float s = 0.0f;
      for (std::uint64_t k = 0; k < hi * wi; ++k) s += in[ch * hi * wi + k];
      out[ch] = s / float(hi * wi);
    }
    sram.write_f32(p.out_addr, out);
    return;
  }
  const std::uint64_t ho = std::uint64_t(p.h_out()), wo = std::uint64_t(p.w_out());
  std::vector<float> out(c * ho * wo);
  for (std::uint64_t ch = 0; ch < c; ++ch)
    for (std::uint64_t y = 0; y < ho; ++y)
      for (std::uint64_t x = 0; x < wo; ++x) {
        float mx = -std::numeric_limits<float>::infinity(), sum = 0.0f;
        int count = 0;
        for_each_window_tap(p, ch, y, x, [&](std::uint64_t i) {
          mx = in[i] > mx ? in[i] : mx;
          sum += in[i];
          ++count;
        });
        // avg_pad: the padding's taps count as zeros (ONNX count_include_pad=1).
        if (p.op == isa::PoolOp::AvgPad) count = p.kh * p.kw;
        out[(ch * ho + y) * wo + x] = p.op == isa::PoolOp::Max ? mx : (count > 0 ? sum / float(count) : 0.0f);
      }
  sram.write_f32(p.out_addr, out);
}

}  // namespace npu::hw::functional
