// `npu run` refuses a program that `npu asm check` rejects with the same list of issues in the
// same format (every issue, not the first), and prints cycles and time that agree.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <string>

#include "npu/sim/run/run_stats.hpp"
#include "tool_runner.hpp"

using npu::test::read_file;
using npu::test::run_npu;

namespace {

const std::string kCheckIssuesEdge = "configs/edge-npu-ddr4.yaml";

// The worked example with two faults: the weights LOAD (line 19) lands past the 1 MiB SRAM,
// and the last-but-one STORE (line 30) names the 16 KiB input tensor for an output range
// (so, third issue, part of the output is never written).
std::string broken_program(const std::string& dir) {
  std::string text = read_file(std::string(NPU_SOURCE_DIR) + "/tests/isa/data/double_buffered_conv.npuasm");
  auto replace = [&](const std::string& a, const std::string& b) {
    const auto p = text.find(a);
    EXPECT_NE(p, std::string::npos) << a;
    if (p != std::string::npos) text.replace(p, a.size(), b);
  };
  replace("tensor=conv1.W ddr=0x0 sram=0x0 ", "tensor=conv1.W ddr=0x0 sram=0xfffff0 ");
  replace("tensor=conv1.out ddr=0x20200", "tensor=input ddr=0x20200");
  const std::string path = dir + "/broken.npuasm";
  std::ofstream(path) << text;
  return path;
}

TEST(RunCheckIssues, RunListsEveryIssueAsAsmCheckDoes) {
  const std::string prog = broken_program(npu::test::fresh_dir("run-issues"));
  const auto check = run_npu({"asm", "check", prog, "--hw", kCheckIssuesEdge});
  const auto run = run_npu({"run", prog, "--hw", kCheckIssuesEdge});
  EXPECT_EQ(check.status, 1);
  EXPECT_EQ(run.status, 1);
  const std::string sram = prog + ":19: error: instruction #0 LOAD (layer conv1): operand 'sram' [0xfffff0, 0x10011f0)";
  const std::string region = prog + ":30: error: instruction #11 STORE (layer conv1): DDR range [0x20200, 0x27f00) "
                                    "leaves tensor 'input' [0x10000, 0x14000)";
  // The retargeted STORE no longer writes conv1.out's rows 16..23, from offset 0x200 = 512
  // (0x20200 - 0x20000) in each channel plane: the data-flow check names offset 512.
  const std::string unwritten = prog + ":15: error: output tensor 'conv1.out' (32768 bytes): offset 512 is never written";
  const std::string count = prog + ": 3 issues against " + kCheckIssuesEdge + "\n";
  for (const auto* out : {&check.output, &run.output}) {
    EXPECT_NE(out->find(sram), std::string::npos) << *out;
    EXPECT_NE(out->find(region), std::string::npos) << *out;
    EXPECT_NE(out->find(unwritten), std::string::npos) << *out;
    EXPECT_NE(out->find(count), std::string::npos) << *out;
  }
  // Same lines, same order: run's message starts with asm check's whole report.
  EXPECT_EQ(run.output.rfind(check.output, 0), 0u) << "asm check:\n" << check.output << "run:\n" << run.output;
  EXPECT_EQ(run.output.find("SRAM overflow"), std::string::npos) << "the controller's one-issue format";
}

TEST(RunCheckIssues, CyclesAsTimeMatchTheCycleCount) {
  // t = cycles / f: 8820 cycles at 1000 MHz = 8.820 us; at 700 MHz 12.600 us; 1 and 2 cycles
  // at 3 MHz = 0.333 and 0.667 us (rounded to nearest).
  EXPECT_EQ(npu::sim::cycles_as_time(8820, 1000), "8.820 us");
  EXPECT_EQ(npu::sim::cycles_as_time(8820, 700), "12.600 us");
  EXPECT_EQ(npu::sim::cycles_as_time(1, 3), "0.333 us");
  EXPECT_EQ(npu::sim::cycles_as_time(2, 3), "0.667 us");
  // The summary line's time is its cycle count at 1 ns per cycle, digit for digit (the worked
  // example used to print "8820 cycles = 8.819 us": the exact last DDR completion, inside
  // cycle 8820).
  const auto r = run_npu({"run", "tests/isa/data/double_buffered_conv.npuasm", "--hw", kCheckIssuesEdge});
  ASSERT_EQ(r.status, 0) << r.output;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.output, m, std::regex(R"(total +(\d+) cycles = ([0-9.]+) us at 1000 MHz)")))
      << r.output;
  const long cycles = std::stol(m[1]);
  char expect[32];
  std::snprintf(expect, sizeof expect, "%ld.%03ld", cycles / 1000, cycles % 1000);
  EXPECT_EQ(m[2].str(), expect);
}

}  // namespace
