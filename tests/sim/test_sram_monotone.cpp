// Issue 11: latency and DDR bytes never increase when the SRAM grows. tiny_convnet on the
// edge preset with only sram.capacity changed (64 KiB .. 8 MiB, 8 banks throughout), every
// built-in strategy: each simulation is its own `npu simulate` process (SystemC elaborates
// once per process). Before bank-aware placement every buffer landed in bank 0 once the
// SRAM was large, and conv-bn-act took 0.01797 ms at 64 KiB but 0.01862 ms at 1 MiB.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>

#include "tool_runner.hpp"

namespace {

class SramMonotone : public ::testing::TestWithParam<std::string> {};

TEST_P(SramMonotone, LatencyAndDdrBytesNeverRiseAsTheSramGrows) {
  const std::string strategy = GetParam();
  const std::string dir = npu::test::fresh_dir("sram-monotone-" + strategy);
  const std::string base = npu::test::read_file(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  const std::regex capacity_line("\n  capacity: [^\n]*");
  ASSERT_TRUE(std::regex_search(base, capacity_line)) << "edge preset has no sram capacity line";
  double prev_ms = -1;
  std::uint64_t prev_bytes = 0;
  for (std::uint64_t kib = 64; kib <= 8192; kib *= 2) {
    const std::string hw = dir + "/hw_" + std::to_string(kib) + "k.yaml";
    std::ofstream(hw) << std::regex_replace(base, capacity_line, "\n  capacity: " + std::to_string(kib) + " KiB",
                                            std::regex_constants::format_first_only);
    const std::string out = dir + "/run_" + std::to_string(kib);
    const auto r = npu::test::run_npu({"simulate", "--model", "tests/data/tiny_convnet.onnx", "--hw", hw, "--strategy",
                                       strategy, "--out", out, "--quiet"});
    ASSERT_EQ(r.status, 0) << r.output;
    const auto j = npu::test::read_json(out + "/run_summary.json");
    const double ms = j.at("latency_ms").get<double>();
    const std::uint64_t bytes = j.at("ddr_read_bytes").get<std::uint64_t>() + j.at("ddr_write_bytes").get<std::uint64_t>();
    if (prev_ms >= 0) {
      EXPECT_LE(ms, prev_ms) << strategy << ": latency rose from " << kib / 2 << " KiB to " << kib << " KiB";
      EXPECT_LE(bytes, prev_bytes) << strategy << ": DDR bytes rose from " << kib / 2 << " KiB to " << kib << " KiB";
    }
    prev_ms = ms;
    prev_bytes = bytes;
  }
}

INSTANTIATE_TEST_SUITE_P(AllStrategies, SramMonotone,
                         ::testing::Values("none", "conv-bn", "conv-act", "conv-bn-act", "residual"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

}  // namespace
