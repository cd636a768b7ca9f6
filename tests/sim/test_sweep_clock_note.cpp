// A sweep over ddr.data_rate_mtps keeps ddr.timing in clocks, so its ns timings stretch with the
// rate (new-user finding: a 1600/2400/3200 sweep ran 10.4 us tREFI cells with no word); the
// sweep says so (sweep_clock_note.hpp).
#include <gtest/gtest.h>

#include "npu/sim/experiment/sweep_clock_note.hpp"

namespace {

npu::sim::SweepSpec rate_spec(const std::string& text) {
  return npu::sim::parse_sweep_spec(text, "spec.yaml", NPU_SOURCE_DIR);
}

const char* kRateRest = "models: [tests/data/tiny_convnet.onnx]\nstrategies: [none]\n";

std::string clock_note(const npu::sim::SweepSpec& spec) {
  return npu::sim::sweep_clock_note(spec, npu::sim::plan_config_points(spec));
}

TEST(SweepClockNote, ADataRateAxisNamesTheStretchedTimings) {
  // edge-npu-ddr4: tREFI 12480 tCK, tRCD 22 tCK (configs/edge-npu-ddr4.yaml). tCK = 2000 / rate ns:
  // 1.25 ns at 1600 -> 15.60 us and 27.50 ns; 0.625 ns at 3200 -> 7.80 us and 13.75 ns.
  const std::string note = clock_note(
      rate_spec(std::string("base: edge-npu-ddr4\naxes:\n  ddr.data_rate_mtps: [3200, 1600, 2400]\n") + kRateRest));
  EXPECT_NE(note.find("tREFI = 12480 tCK is 15.60 us at 1600 MT/s and 7.80 us at 3200 MT/s, tRCD = 22 tCK 27.50 ns "
                      "and 13.75 ns"),
            std::string::npos)
      << note;
  EXPECT_NE(note.find("fix: to keep a device's ns timings, zip its ddr.timing keys"), std::string::npos) << note;
}

TEST(SweepClockNote, NoNoteWithoutARateAxisOrWithTheTimingsSweptAlongside) {
  EXPECT_EQ(clock_note(rate_spec(std::string("base: edge-npu-ddr4\naxes:\n  ddr.channels: [1, 2]\n") + kRateRest)),
            "");
  EXPECT_EQ(clock_note(rate_spec(std::string("base: edge-npu-ddr4\nzip:\n  ddr.data_rate_mtps: [1600, "
                                                         "3200]\n  ddr.timing.tREFI: [6240, 12480]\n") +
                                             kRateRest)),
            "");
}

}  // namespace

namespace {

TEST(SweepClockNote, AValueTheConfigRefusesIsNotReadAsARate) {
  // '1600MT/s' is an invalid cell (not a whole number); the note spans only 3200, the one rate a
  // cell runs at: 12480 x 0.625 ns = 7.80 us, 22 x 0.625 = 13.75 ns (std::stod alone read it as 1600).
  const std::string note = clock_note(
      rate_spec(std::string("base: edge-npu-ddr4\naxes:\n  ddr.data_rate_mtps: [3200, 1600MT/s]\n") + kRateRest));
  EXPECT_NE(note.find("tREFI = 12480 tCK is 7.80 us at 3200 MT/s, tRCD = 22 tCK 13.75 ns, and every"), std::string::npos)
      << note;
  EXPECT_EQ(note.find("1600"), std::string::npos) << note;
  // Rates the loader refuses by range are no figure either (re-test finding: 100000 MT/s was named,
  // and a 0 among valid rates dropped the note): [1600, 3200] of [1600, 3200, 100000, 0].
  const std::string ranged = clock_note(
      rate_spec(std::string("base: edge-npu-ddr4\naxes:\n  ddr.data_rate_mtps: [1600, 3200, 100000, 0]\n") + kRateRest));
  EXPECT_NE(ranged.find("tREFI = 12480 tCK is 15.60 us at 1600 MT/s and 7.80 us at 3200 MT/s"), std::string::npos)
      << ranged;
}

}  // namespace
