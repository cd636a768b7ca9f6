// Percentile calibration with attention-mask sentinels (calibration.cpp, mask_sentinels.cpp):
// the ranks are taken over the values without sentinels of every sample, each sample counting
// its own (a causal mask hides a different number of scores per prompt). Before, the count of
// the first sample stood for every sample's. Expected ranges derived by hand below.
#include <gtest/gtest.h>

#include <limits>

#include "npu/compiler/quantize/calibration.hpp"
#include "test_compile_graphs.hpp"

namespace npu::compiler {
namespace {

using testing::GraphBuilder;

RefTensor row(std::vector<float> v) {
  RefTensor t;
  t.shape = {1, 10};
  t.f = std::move(v);
  return t;
}

TEST(CalibrationSentinels, PercentileRanksCountEachSamplesOwnValues) {
  // x [1, 10] -> Relu. Sample A: six -inf (sentinels, left out) and -7, -6, 6, 7; sample B:
  // -5..-1, 1..5. The 14 values kept, sorted: -7 -6 -5 -4 -3 -2 -1 1 2 3 4 5 6 7 (index 0..13).
  // 90 %: hi = index ceil(0.9 x 14) - 1 = 12 -> 6; lo = index ceil(0.1 x 14) - 1 = 1 -> -6.
  // (Sized from sample A's 4 values x 2 samples = 8 the tails held only the max and min: [-7, 7];
  // from B's 10 x 2 = 20, the 3rd largest and 2nd smallest: [-6, 5].)
  GraphBuilder b;
  b.output(b.unary("relu", "Relu", b.input("x", {1, 10})));
  const float ninf = -std::numeric_limits<float>::infinity();
  const CalibSample a{{"x", row({ninf, ninf, -7, ninf, -6, 6, ninf, 7, ninf, ninf})}};
  const CalibSample c{{"x", row({-5, -4, -3, -2, -1, 1, 2, 3, 4, 5})}};
  CalibrationOptions o;
  o.method = Calibrator::Percentile;
  o.percentile = 90.0;
  for (const auto& samples : {std::vector<CalibSample>{a, c}, std::vector<CalibSample>{c, a}}) {
    const TensorRange r = calibrate(b.g, samples, o).at("x");
    EXPECT_EQ(r.lo, -6.0f);
    EXPECT_EQ(r.hi, 6.0f);
  }
  // The same as percentile_range over the 14 values at once.
  const TensorRange all = percentile_range({-7, -6, -5, -4, -3, -2, -1, 1, 2, 3, 4, 5, 6, 7}, 90.0);
  EXPECT_EQ(all.lo, -6.0f);
  EXPECT_EQ(all.hi, 6.0f);
}

TEST(CalibrationSentinels, ASampleOfOnlySentinelsAddsNoValues) {
  // Sample A all -inf, sample B 1..10: the 10 values of B alone. 90 %: hi = index
  // ceil(9) - 1 = 8 -> 9; lo = index ceil(1) - 1 = 0 -> 1, then widened to hold 0: [0, 9].
  GraphBuilder b;
  b.output(b.unary("relu", "Relu", b.input("x", {1, 10})));
  const CalibSample a{{"x", row(std::vector<float>(10, -std::numeric_limits<float>::infinity()))}};
  const CalibSample c{{"x", row({1, 2, 3, 4, 5, 6, 7, 8, 9, 10})}};
  CalibrationOptions o;
  o.method = Calibrator::Percentile;
  o.percentile = 90.0;
  for (const auto& samples : {std::vector<CalibSample>{a, c}, std::vector<CalibSample>{c, a}}) {
    const TensorRange r = calibrate(b.g, samples, o).at("x");
    EXPECT_EQ(r.lo, 0.0f);
    EXPECT_EQ(r.hi, 9.0f);
  }
}

}  // namespace
}  // namespace npu::compiler
