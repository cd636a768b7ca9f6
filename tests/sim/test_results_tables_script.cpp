// scripts/results_tables.py (docs/results.md "Current figures") on hand-written summaries:
// it flags depth-first slower than / heavier than residual and a latency or DDR rise as
// the SRAM grows (exit 1, each with its numbers), computes the goal ratios, and exits 0 with
// "none" when nothing is violated.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "tool_runner.hpp"

namespace {

bool tables_have_matplotlib() { return npu::test::run_shell("/usr/bin/python3 -c 'import matplotlib'").status == 0; }

std::string row(const std::string& model, const std::string& hw, const std::string& strategy, double mb, double ms) {
  // x compulsory with a compulsory of 10 MB: mb / 10.
  return "{\"model\":\"" + model + "\",\"hw\":\"" + hw + "\",\"strategy\":\"" + strategy +
         "\",\"status\":\"ok\",\"ddr_total_mb\":" + std::to_string(mb) + ",\"latency_ms\":" + std::to_string(ms) +
         ",\"ddr_over_compulsory\":" + std::to_string(mb / 10) +
         ",\"speedup_vs_none\":1,\"ddr_saved_pct\":0,\"mac_utilisation\":0.5,\"energy_mj\":1}";
}

npu::test::ToolResult run_script(const std::string& dir, const std::string& presets, const std::string& sram) {
  std::ofstream(dir + "/presets.json") << "[" << presets << "]";
  std::ofstream(dir + "/sram.json") << "[" << sram << "]";
  return npu::test::run_shell(std::string("/usr/bin/python3 '") + NPU_SOURCE_DIR + "/scripts/results_tables.py' '" +
                              dir + "/presets.json' '" + dir + "/sram.json' '" + dir + "/plot.png'");
}

TEST(ResultsTablesScript, FlagsEveryViolationWithItsNumbers) {
  if (!tables_have_matplotlib()) GTEST_SKIP() << "Debian's python3-matplotlib is not installed (scripts/setup.sh installs it)";
  const std::string dir = npu::test::fresh_dir("results-tables-bad");
  const std::string e = "edge-npu-ddr4__capacity-";
  // Presets: depth-first 2 % slower than residual but lighter on DDR.
  const std::string presets = row("mobilenet_v2", "edge-npu-ddr4", "residual", 20, 4.0) + "," +
                              row("mobilenet_v2", "edge-npu-ddr4", "depth-first", 10, 4.08);
  // Sweep: depth-first latency rises from 1 MiB to 4 MiB (3.5 -> 3.6 ms, +2.86 %); residual's
  // DDR bytes rise from 1 MiB to 4 MiB (18 -> 18.5 MB).
  const std::string sram = row("mobilenet_v2", e + "1MiB", "residual", 18, 4.0) + "," +
                           row("mobilenet_v2", e + "1MiB", "depth-first", 9, 3.5) + "," +
                           row("mobilenet_v2", e + "4MiB", "residual", 18.5, 4.0) + "," +
                           row("mobilenet_v2", e + "4MiB", "depth-first", 12, 3.6);
  const auto r = run_script(dir, presets, sram);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("depth-first slower than residual: mobilenet_v2 on edge-npu-ddr4: 4.0800 ms vs 4.0000 ms"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("depth-first moves more DDR bytes"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("latency rose with SRAM: mobilenet_v2 depth-first: 1 MiB 3.5000 ms -> 4 MiB 3.6000 ms (+2.86 %)"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("DDR bytes rose with SRAM: mobilenet_v2 residual: 1 MiB 18.0000 MB -> 4 MiB 18.5000 MB"),
            std::string::npos)
      << r.output;
  // Goals: 9 / 18 = 0.50x of residual at 1 MiB; 12 MB / 10 MB compulsory = 1.20x at 4 MiB.
  EXPECT_NE(r.output.find("mobilenet_v2 at 1 MiB: depth-first DDR / residual DDR = 9.00 / 18.00 MB = 0.50x"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("mobilenet_v2 at 4 MiB: depth-first DDR / compulsory = 1.20x"), std::string::npos)
      << r.output;
}

TEST(ResultsTablesScript, CleanFiguresExitZero) {
  if (!tables_have_matplotlib()) GTEST_SKIP() << "Debian's python3-matplotlib is not installed (scripts/setup.sh installs it)";
  const std::string dir = npu::test::fresh_dir("results-tables-ok");
  const std::string e = "edge-npu-ddr4__capacity-";
  const auto r = run_script(dir,
                            row("resnet50", "tpu-v1-like", "residual", 50, 2.0) + "," +
                                row("resnet50", "tpu-v1-like", "depth-first", 30, 1.2),
                            row("resnet50", e + "128KiB", "depth-first", 90, 25) + "," +
                                row("resnet50", e + "256KiB", "depth-first", 60, 9.5));
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("### Violations\n\nnone\n"), std::string::npos) << r.output;
}

}  // namespace
