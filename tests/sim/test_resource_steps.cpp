// resource_step_lines: the sweep summary names a cell that got slower with more SRAM, DDR
// channels, DDR data rate or SRAM port width (new-user sweeps: MobileNetV2 depth-first 3.754 ->
// 3.817 ms from 512 to 768 KiB, and slower with 2 DDR channels than with 1, said nowhere).
#include <gtest/gtest.h>

#include "npu/sim/experiment/resource_steps.hpp"

namespace npu::sim {
namespace {

AxisCell cell(const std::string& strategy, std::vector<std::pair<std::string, std::string>> axes, double ms,
              double mb) {
  return {"mobilenet_v2", strategy, std::move(axes), ms, mb};
}

TEST(ResourceSteps, NamesEachRiseAlongOneAxisWithTheOtherAxesFixed) {
  // Sizes are ordered by their bytes (768KiB = 786,432 < 1000kB = 1,000,000 < 1MiB = 1,048,576),
  // not as text; a rise of 0.1 % or less is not named; cells that differ in another axis too
  // are not compared.
  const std::vector<AxisCell> cells = {
      cell("depth-first", {{"sram.capacity", "1MiB"}, {"ddr.channels", "1"}}, 3.700, 3.70),
      cell("depth-first", {{"sram.capacity", "768KiB"}, {"ddr.channels", "1"}}, 3.817, 4.85),
      cell("depth-first", {{"sram.capacity", "512KiB"}, {"ddr.channels", "1"}}, 3.754, 3.88),
      cell("depth-first", {{"sram.capacity", "1000kB"}, {"ddr.channels", "1"}}, 3.8175, 4.00),  // +0.013 %: not named
      cell("depth-first", {{"sram.capacity", "512KiB"}, {"ddr.channels", "2"}}, 3.600, 3.88),
      cell("none", {{"sram.capacity", "512KiB"}, {"ddr.channels", "1"}}, 4.0, 5.0),
      cell("none", {{"sram.capacity", "512KiB"}, {"ddr.channels", "2"}}, 4.1, 5.0),  // +2.5 % with a channel more
  };
  EXPECT_EQ(resource_step_lines(cells),
            "slower with more of a resource: 2 step(s) (the compiler chose other tiles, plans or stacks for the larger "
            "config by its estimates; docs/results.md \"Monotonicity\"; plan_sram_bytes in summary.csv says which SRAM "
            "plan ran):\n"
            // 3.817 / 3.754 = 1.01678: +1.7 %
            "  mobilenet_v2 depth-first ddr.channels=1: 3.754 -> 3.817 ms (+1.7 %), 3.88 -> 4.85 MB DDR, as "
            "sram.capacity goes 512KiB -> 768KiB\n"
            // 4.1 / 4.0 = 1.025: +2.5 %
            "  mobilenet_v2 none sram.capacity=512KiB: 4.000 -> 4.100 ms (+2.5 %), 5.00 -> 5.00 MB DDR, as "
            "ddr.channels goes 1 -> 2\n");
}

TEST(ResourceSteps, NothingToSayAndTheCap) {
  EXPECT_EQ(resource_step_lines({}), "");
  // Other axes (the array's rows: more is not always faster, docs/timing.md) are not checked.
  EXPECT_EQ(resource_step_lines({cell("none", {{"mac_array.rows", "32"}}, 1.0, 1.0),
                                 cell("none", {{"mac_array.rows", "64"}}, 2.0, 1.0)}),
            "");
  std::vector<AxisCell> rising;
  for (int ch = 1; ch <= 4; ++ch) rising.push_back(cell("none", {{"ddr.channels", std::to_string(ch)}}, ch, 1.0));
  const std::string text = resource_step_lines(rising, 2);
  EXPECT_NE(text.find("3 step(s)"), std::string::npos) << text;
  EXPECT_NE(text.find("as ddr.channels goes 2 -> 3\n  ... and 1 more\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace npu::sim
