// int8 verify's warning for run inputs outside their calibrated range (input_range_check.hpp),
// by hand: the samples span [-1, 1], so the 8-bit grid covers [-1, 1] with steps of 2 / 255
// and half a step of 1 / 255 = 0.00392 of slack at either end.
#include <gtest/gtest.h>

#include "npu/sim/verify/input_range_check.hpp"

namespace npu::sim {
namespace {

compiler::RefTensor floats(std::vector<float> v) {
  compiler::RefTensor t;
  t.shape = {std::int64_t(v.size())};
  t.f = std::move(v);
  return t;
}

TEST(InputRangeCheck, NamesTheInputTheShareOutsideAndTheFix) {
  const std::vector<compiler::CalibSample> samples = {{{"past", floats({-1.0f, 0.5f})}}, {{"past", floats({1.0f})}}};
  // 2 of 4 values outside [-1 - 0.0039, 1 + 0.0039]: -4.3 and 4.0; 1.003 is within the slack.
  const compiler::RefTensorMap run = {{"past", floats({-4.3f, 0.2f, 1.003f, 4.0f})}, {"ids", floats({0.0f})}};
  const auto w = input_range_warnings(run, samples, "1 seeded sample(s) U(-1,1)");
  ASSERT_EQ(w.size(), 1u);  // "ids" has no samples: nothing to compare with
  EXPECT_EQ(w[0],
            "input 'past': 2 of 4 values (50.0 %) lie outside its calibrated range [-1, 1] (1 seeded sample(s) "
            "U(-1,1)) and clip on the int8 grid; the run spans [-4.3, 4]\n  fix: calibrate on data like the run's, "
            "--calib DIR (docs/functional.md \"Calibration\")");
}

TEST(InputRangeCheck, NothingWhenTheRunStaysOnTheGridOrIsInteger) {
  const std::vector<compiler::CalibSample> samples = {{{"x", floats({0.25f, 2.0f})}}};
  // The grid always holds 0: [min(0.25, 0), 2] = [0, 2]; half a step 2 / 510 = 0.0039.
  EXPECT_TRUE(input_range_warnings({{"x", floats({0.0f, -0.003f, 2.003f})}}, samples, "c").empty());
  EXPECT_EQ(input_range_warnings({{"x", floats({-0.01f})}}, samples, "c").size(), 1u);
  compiler::RefTensor ids;
  ids.type = compiler::ElemType::Int64;
  ids.i = {5, 9000};
  EXPECT_TRUE(input_range_warnings({{"x", ids}}, samples, "c").empty());
}

}  // namespace
}  // namespace npu::sim
