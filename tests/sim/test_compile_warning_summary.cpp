// `npu experiment`'s summary names what a compile did not simulate as given (nodes removed as
// dead, a graph of views only...): a "compile:" line under the table, and each run's warnings
// in summary.json, not only the child's runs/<id>/log.txt (new-user finding: a model with a dead
// Conv branch showed MAC % and speedups for the half that ran, with no word of the other).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "npu/sim/experiment/compile_warnings.hpp"
#include "npu/sim/experiment/experiment.hpp"
#include "tool_runner.hpp"

namespace npu::sim {
namespace {

// A run's run_summary.json with the keys read_run_summary requires and `warnings`.
RunSummary read_with_warnings(const std::string& dir, const std::string& strategy,
                              const std::vector<std::string>& warnings) {
  const std::string run_dir = dir + "/" + strategy;
  std::filesystem::create_directories(run_dir);
  std::string list;
  for (const std::string& w : warnings) list += (list.empty() ? "\"" : ", \"") + w + "\"";
  std::ofstream(run_dir + "/run_summary.json")
      << "{\"cycles\": 100, \"latency_ms\": 0.1, \"ddr_read_bytes\": 1000, \"ddr_write_bytes\": 500, "
         "\"mac_utilisation\": 0.5, \"ddr_bw_utilisation\": 0.1, \"warnings\": [" + list + "]}\n";
  return read_run_summary({"m/dead.onnx", "configs/edge-npu-ddr4.yaml", strategy, run_dir, "dead__edge__" + strategy});
}

TEST(CompileWarningSummary, WarningsNoOtherLineShowsBecomeCompileLinesCountedOverRuns) {
  const std::string dir = npu::test::fresh_dir("compile-warning-summary");
  const std::string dead = "m/dead.onnx: warning: removed 1 node(s) whose outputs reach no graph output (first: Conv "
                           "'deadconv'): they are not compiled or simulated";
  // Shown by the host: and sram: lines already (compiler.cpp's texts): not repeated.
  const std::string host = "m/dead.onnx: warning: 12.5 % of the MACs (5 of 40) run on the host (2 host nodes; see "
                           "the compile report's host rows)";
  const std::string ladder = "m/dead.onnx: warning: compiled for the configured SRAM only, not its smaller-SRAM "
                             "plans: 2000000000 parameters are more than the plan ladder's limit of 1e9";
  const std::vector<RunSummary> runs = {read_with_warnings(dir, "none", {dead, host}),
                                        read_with_warnings(dir, "residual", {dead, ladder})};
  ASSERT_TRUE(runs[0].ok && runs[1].ok) << runs[0].error << runs[1].error;
  EXPECT_EQ(runs[0].warnings, (std::vector<std::string>{dead, host}));
  EXPECT_EQ(runs[1].compile_warnings, std::vector<std::string>{dead.substr(dead.find("warning: "))});
  const std::string text = write_summary(dir, runs);
  const std::string line = "compile: dead: warning: removed 1 node(s) whose outputs reach no graph output (first: "
                           "Conv 'deadconv'): they are not compiled or simulated (2 run(s))\n";
  EXPECT_NE(text.find(line), std::string::npos) << text;
  EXPECT_EQ(text.find("compile: dead: warning: 12.5 %"), std::string::npos) << text;
  EXPECT_EQ(text.find("compile: dead: warning: compiled for the configured SRAM only"), std::string::npos) << text;
  const std::string md = npu::test::read_file(dir + "/summary.md");
  EXPECT_NE(md.find(line), std::string::npos);
  // The runs read 1000 B and wrote 500 B: summary.md's MB cells are mb_cell's, as the terminal's
  // (2 significant digits, trailing zeros dropped: 0.001 / 0.0005 / 0.0015), not "0.00" (new-user finding).
  EXPECT_NE(md.find("| dead | edge-npu-ddr4 | none | 0.001 | 0.0005 | 0.0015 |"), std::string::npos) << md;
  const std::string json = npu::test::read_file(dir + "/summary.json");
  EXPECT_NE(json.find("\"warnings\": [\n      \"m/dead.onnx: warning: removed 1 node(s)"), std::string::npos) << json;
}

TEST(CompileWarningSummary, WithoutSourceKeepsTheKindAndTheText) {
  EXPECT_EQ(without_source("a/b.onnx: warning: x y"), "warning: x y");
  EXPECT_EQ(without_source("a/b.onnx: note: --dynamic-size 4 ..."), "note: --dynamic-size 4 ...");
  EXPECT_EQ(without_source("no kind here"), "no kind here");
}

}  // namespace
}  // namespace npu::sim
