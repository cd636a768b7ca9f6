// Two experiments and one --out folder (sim/include/npu/sim/experiment/experiment_folder.hpp): the
// folder is locked while an experiment writes into it, and re-running a subset keeps the
// earlier results that are still there (marked) and removes stale runs, layers and plots.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "tool_runner.hpp"

namespace fs = std::filesystem;
using npu::test::read_file;
using npu::test::read_json;
using npu::test::run_npu;
using npu::test::run_shell;

namespace {

const std::string kModel = "tests/data/tiny_convnet.onnx";
const std::string kHw = "configs/edge-npu-ddr4.yaml";

npu::test::ToolResult experiment(const std::string& out, const std::string& strategies) {
  return run_npu({"experiment", "--model", kModel, "--hw", kHw, "--strategies", strategies, "--out", out});
}

/// summary.json rows as "strategy:status:earlier_run", in file order.
std::vector<std::string> rows(const std::string& out) {
  std::vector<std::string> v;
  for (const auto& r : read_json(out + "/summary.json"))
    v.push_back(r.at("strategy").get<std::string>() + ":" + r.at("status").get<std::string>() + ":" +
                (r.at("earlier_run").get<bool>() ? "earlier" : "now"));
  return v;
}

}  // namespace

TEST(ExperimentFolder, ASecondExperimentIntoALockedFolderIsRefusedNamingTheHolder) {
  const std::string out = npu::test::fresh_dir("exp-locked");
  // Another experiment's lock: the lock file describes it and flock(1) holds it for 20 s.
  std::ofstream(out + "/.lock") << "pid=4242\nstarted=2026-01-02 03:04:05 UTC\ncommand=npu experiment --out x\n";
  const std::string holder = "flock '" + out + "/.lock' sleep 20 </dev/null >/dev/null 2>&1 & echo $! > '" + out + "/holder.pid'";
  ASSERT_EQ(run_shell("(" + holder + ") && sleep 0.5").status, 0);
  const auto r = experiment(out, "none");
  run_shell("kill $(cat '" + out + "/holder.pid') 2>/dev/null");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("--out '" + out +
                          "': error: another npu experiment is writing into this folder (pid 4242, started "
                          "2026-01-02 03:04:05 UTC: npu experiment --out x)"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(out + "/summary.json"));
  EXPECT_FALSE(fs::exists(out + "/runs"));
}

TEST(ExperimentFolder, TheLockFileNamesTheLastExperiment) {
  const std::string out = npu::test::fresh_dir("exp-lockfile");
  ASSERT_EQ(experiment(out, "none").status, 0);
  const std::string lock = read_file(out + "/.lock");
  EXPECT_NE(lock.find("pid="), std::string::npos) << lock;
  EXPECT_NE(lock.find("command="), std::string::npos) << lock;
  EXPECT_NE(lock.find(" experiment --model " + kModel), std::string::npos) << lock;
  EXPECT_NE(lock.find(" UTC\n"), std::string::npos) << lock;
}

TEST(ExperimentFolder, ASubsetRerunKeepsTheEarlierResultsMarked) {
  const std::string out = npu::test::fresh_dir("exp-merge");
  ASSERT_EQ(experiment(out, "none,conv-bn").status, 0);
  const auto r = experiment(out, "conv-act");
  ASSERT_EQ(r.status, 0) << r.output;
  // This run's row first, then the earlier rows in their earlier order.
  EXPECT_EQ(rows(out), (std::vector<std::string>{"conv-act:ok:now", "none:ok:earlier", "conv-bn:ok:earlier"}));
  EXPECT_NE(read_file(out + "/summary.csv").find("\ntiny_convnet,edge-npu-ddr4,none,ok,"), std::string::npos);
  EXPECT_NE(r.output.find("none *"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("kept 2 earlier row(s)"), std::string::npos) << r.output;
  for (const char* s : {"none", "conv-bn", "conv-act"})
    EXPECT_TRUE(fs::exists(out + "/layers/tiny_convnet__edge-npu-ddr4__" + std::string(s) + ".csv")) << s;
}

TEST(ExperimentFolder, AReportOfASubsetRerunListsTheKeptRowsToo) {
  // New-user finding: the re-run rewrote plan.json with its own cells only, so `npu report`
  // listed 2 of the summary's 14 rows, with no row missing or failed.
  const std::string out = npu::test::fresh_dir("exp-merge-report");
  ASSERT_EQ(experiment(out, "none,conv-bn").status, 0);
  ASSERT_EQ(experiment(out, "conv-act").status, 0);
  EXPECT_EQ(read_json(out + "/plan.json").at("cells").size(), 3u);
  const auto r = run_npu({"report", out, "--out", out + "/report"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("3 cells: 3 ok, 0 failed, 0 invalid, 0 missing"), std::string::npos) << r.output;
  std::vector<std::string> strategies;
  for (const auto& row : read_json(out + "/report/summary.json")) strategies.push_back(row.at("strategy"));
  std::sort(strategies.begin(), strategies.end());
  EXPECT_EQ(strategies, (std::vector<std::string>{"conv-act", "conv-bn", "none"}));
}

TEST(ExperimentFolder, EarlierRowsWhoseResultsAreGoneAreDroppedWithTheirStaleFiles) {
  const std::string out = npu::test::fresh_dir("exp-stale");
  ASSERT_EQ(experiment(out, "none,conv-bn,residual").status, 0);
  // conv-bn's result is gone; residual's is malformed; a plot of the old summary exists.
  fs::remove(out + "/runs/tiny_convnet__edge-npu-ddr4__conv-bn/run_summary.json");
  std::ofstream(out + "/runs/tiny_convnet__edge-npu-ddr4__residual/run_summary.json") << "{not json";
  fs::create_directories(out + "/plots");
  std::ofstream(out + "/plots/strategies_tiny_convnet.png") << "old";
  const auto r = experiment(out, "conv-act");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(rows(out), (std::vector<std::string>{"conv-act:ok:now", "none:ok:earlier"}));
  EXPECT_FALSE(fs::exists(out + "/runs/tiny_convnet__edge-npu-ddr4__conv-bn"));
  EXPECT_FALSE(fs::exists(out + "/runs/tiny_convnet__edge-npu-ddr4__residual"));
  EXPECT_FALSE(fs::exists(out + "/layers/tiny_convnet__edge-npu-ddr4__conv-bn.csv"));
  EXPECT_FALSE(fs::exists(out + "/layers/tiny_convnet__edge-npu-ddr4__residual.csv"));
  EXPECT_FALSE(fs::exists(out + "/plots/strategies_tiny_convnet.png"));
  // 2 run folders + 2 layer tables removed, 1 plot.
  EXPECT_NE(r.output.find("kept 1 earlier row(s) whose results are still in runs/, dropped 2 whose results are gone "
                          "or failed, removed 4 stale run folder(s)/layer file(s) and 1 plot(s)"),
            std::string::npos)
      << r.output;
}

TEST(ExperimentFolder, TheUsersOwnFilesInTheFolderStay) {
  // New-user finding: --out into a folder of one's own files removed them ("removed 2 stale run
  // folder(s)/layer file(s) and 1 plot(s)") though no experiment had written there.
  const std::string out = npu::test::fresh_dir("exp-users-files");
  fs::create_directories(out + "/runs/my_important_run");
  fs::create_directories(out + "/plots");
  fs::create_directories(out + "/layers");
  std::ofstream(out + "/runs/my_important_run/notes.txt") << "data";
  std::ofstream(out + "/plots/fig1.png") << "png";
  std::ofstream(out + "/layers/mine.csv") << "x";
  const auto r = experiment(out, "none");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(read_file(out + "/runs/my_important_run/notes.txt"), "data");
  EXPECT_EQ(read_file(out + "/plots/fig1.png"), "png");
  EXPECT_EQ(read_file(out + "/layers/mine.csv"), "x");
  EXPECT_EQ(r.output.find("removed"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::exists(out + "/layers/tiny_convnet__edge-npu-ddr4__none.csv"));
}

TEST(ExperimentFolder, ARerunOfTheSameRunReplacesItsRow) {
  const std::string out = npu::test::fresh_dir("exp-same");
  ASSERT_EQ(experiment(out, "none").status, 0);
  ASSERT_EQ(experiment(out, "none").status, 0);
  EXPECT_EQ(rows(out), (std::vector<std::string>{"none:ok:now"}));
}

TEST(AtomicOutputs, ARunWithEveryTraceLeavesNoTemporaryFiles) {
  const std::string out = npu::test::fresh_dir("atomic-run");
  const auto r = run_npu({"run", "tests/hw/data/two_layer.npuasm", "--hw", kHw, "--out", out, "--trace",
                          "ddr,timeline,vcd"});
  ASSERT_EQ(r.status, 0) << r.output;
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(out)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"ddr.csv", "ddr.trace", "layers.csv", "run.json", "timeline.json",
                                             "waves.vcd"}));
  EXPECT_NE(read_file(out + "/waves.vcd").find("(omitted: reproducible output)"), std::string::npos);
}

TEST(AtomicOutputs, DdrGenIntoAMissingFolderWritesNothing) {
  const auto r = run_npu({"ddr", "gen", "seq-read", "--hw", kHw, "-n", "10", "-o", "/nonexistent-npu-dir/t.trace"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("/nonexistent-npu-dir/t.trace: error: cannot write the trace (missing folder or no "
                          "permission)"),
            std::string::npos)
      << r.output;
}

TEST(ExperimentFolder, TwoCellsWithTheSameRunFolderNameAreRefusedBeforeAnyRun) {
  // Run folders are named model__hw__strategy from the file stems: a__edge.onnx on x.yaml and
  // a.onnx on edge__x.yaml are both runs/a__edge__x__none. One cell used to overwrite the
  // other's folder, and a rerun showed one model's figures under the other's name (exit 0).
  const std::string dir = npu::test::fresh_dir("exp-same-folder");
  fs::copy_file(std::string(NPU_SOURCE_DIR) + "/" + kModel, dir + "/a__edge.onnx");
  fs::copy_file(std::string(NPU_SOURCE_DIR) + "/" + kModel, dir + "/a.onnx");
  fs::copy_file(std::string(NPU_SOURCE_DIR) + "/" + kHw, dir + "/x.yaml");
  fs::copy_file(std::string(NPU_SOURCE_DIR) + "/" + kHw, dir + "/edge__x.yaml");
  const npu::test::ToolResult r =
      run_npu({"experiment", "--model", dir + "/a__edge.onnx", "--model", dir + "/a.onnx", "--hw", dir + "/x.yaml",
               "--hw", dir + "/edge__x.yaml", "--strategies", "none", "--out", dir + "/out"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("would share the run folder runs/a__edge__x__none"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("fix: rename one of the files"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir + "/out/runs/a__edge__x__none/run_summary.json"));
}
