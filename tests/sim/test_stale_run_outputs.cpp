// `npu run --out D` into a folder an earlier run wrote kept that run's traces and its
// run_summary.json beside the new run.json: a timeline of the edge preset next to a run.json
// of tpu-v1-like, and run_summary.json cycles 4,161,880 against run.json's 1,847,217 (new-user
// finding). `npu report --out` an experiment's own folder replaced its summary, after which the
// experiment's next run called that summary malformed. Both now behave as the other commands do.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "tool_runner.hpp"

namespace {

namespace fs = std::filesystem;
using npu::test::fresh_dir;
using npu::test::run_npu;

const std::string kProgram = "tests/hw/data/two_layer.npuasm";

TEST(StaleRunOutputs, ARunWithoutTracesRemovesTheEarlierRunsTracesAndSummary) {
  const std::string out = fresh_dir("stale-run") + "/out";
  auto r = run_npu({"run", kProgram, "--hw", "configs/edge-npu-ddr4.yaml", "--out", out, "--trace", "ddr,timeline,vcd"});
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* f : {"ddr.csv", "ddr.trace", "timeline.json", "waves.vcd"}) ASSERT_TRUE(fs::exists(out + "/" + f)) << f;
  std::ofstream(out + "/run_summary.json") << "{\"total_cycles\": 1}\n";  // as npu simulate leaves one
  std::ofstream(out + "/notes.txt") << "the user's\n";

  r = run_npu({"run", kProgram, "--hw", "configs/tpu-v1-like.yaml", "--out", out});
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* f : {"ddr.csv", "ddr.trace", "timeline.json", "waves.vcd", "run_summary.json"})
    EXPECT_FALSE(fs::exists(out + "/" + f)) << f << " of the earlier run is still there";
  EXPECT_EQ(npu::test::read_json(out + "/run.json").at("hw").get<std::string>(), "tpu-v1-like");
  EXPECT_TRUE(fs::exists(out + "/notes.txt"));  // not the run's: kept
}

TEST(StaleRunOutputs, ABadTraceOptionLosesNothing) {
  const std::string out = fresh_dir("stale-run-bad") + "/out";
  auto r = run_npu({"run", kProgram, "--hw", "configs/edge-npu-ddr4.yaml", "--out", out, "--trace", "timeline"});
  ASSERT_EQ(r.status, 0) << r.output;
  // --trace-compress without ddr, and a DDR trace under a fixed memory: refused before anything is removed.
  r = run_npu({"run", kProgram, "--hw", "configs/edge-npu-ddr4.yaml", "--out", out, "--trace-compress"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(fs::exists(out + "/timeline.json"));
  EXPECT_TRUE(fs::exists(out + "/run.json"));
}

TEST(ReportOut, AnExperimentsOwnFolderIsRefusedAndKept) {
  const std::string dir = fresh_dir("report-out");
  auto r = run_npu({"experiment", "--model", "tests/data/tiny_convnet.onnx", "--hw", "configs/edge-npu-ddr4.yaml",
                    "--strategies", "none", "--out", dir + "/exp", "-q"});
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string before = npu::test::read_file(dir + "/exp/summary.json");
  r = run_npu({"report", dir + "/exp", "--out", dir + "/exp/"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("the folder holds an experiment's, a sweep's or an npu llm run's results"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("fix: give npu report a folder of its own, e.g. --out " + dir + "/exp-report"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(npu::test::read_file(dir + "/exp/summary.json"), before);
  r = run_npu({"report", dir + "/exp", "--out", dir + "/exp-report"});  // a folder of its own: fine
  EXPECT_EQ(r.status, 0) << r.output;
}

}  // namespace
