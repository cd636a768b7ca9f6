// A trace in the other format than the one asked for: the error names the format it looks
// like and the exact flag, instead of "'LD' is not a hexadecimal address".
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "tool_runner.hpp"

namespace {

TEST(TraceFormatHint, RamulatorTraceReadAsDramsim3SuggestsTheFlag) {
  const std::string dir = npu::test::fresh_dir("fmt-hint");
  std::ofstream(dir + "/ram.trace") << "# Ramulator load/store trace\nLD 0x1f40\nST 0x2000\n";
  auto r = npu::test::run_tool("ddr run --hw configs/edge-npu-ddr4.yaml --trace " + dir + "/ram.trace");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find(dir + "/ram.trace:2:1: error: this line is in Ramulator's load/store format (`LD 0xADDR`), "
                                "but the trace is read as DRAMSim3"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("fix: add --format ramulator"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("is not a hexadecimal address"), std::string::npos) << r.output;
  // With the flag it runs: 2 requests.
  r = npu::test::run_tool("ddr run --hw configs/edge-npu-ddr4.yaml --format ramulator --trace " + dir + "/ram.trace");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("requests        2 (reads 1, writes 1)"), std::string::npos) << r.output;
}

TEST(TraceFormatHint, Dramsim3TraceReadAsRamulatorSuggestsTheDefault) {
  const std::string dir = npu::test::fresh_dir("fmt-hint2");
  std::ofstream(dir + "/ds3.trace") << "0x1f40 READ 0\n";
  auto r = npu::test::run_tool("ddr run --hw configs/edge-npu-ddr4.yaml --format ramulator --trace " + dir +
                               "/ds3.trace");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("/ds3.trace:1:1: error: this line is in DRAMSim3's format (`0xADDR READ CYCLE`)"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("fix: use --format dramsim3 (the default)"), std::string::npos) << r.output;
}

}  // namespace
