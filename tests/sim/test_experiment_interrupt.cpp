// Interrupted and resumed experiments (sim/include/npu/sim/experiment/child_signals.hpp,
// cell_resume.hpp; docs/experiment.md, "Resuming and interruption"): SIGINT or SIGTERM sent
// to `npu experiment` alone (not its process group) stops its children before it exits, so
// nothing writes into the folder afterwards; the summary of what finished is written and
// marked incomplete; a rerun reuses the runs whose content key is unchanged.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "tool_runner.hpp"

extern char** environ;

namespace fs = std::filesystem;
namespace {

const std::string kInterruptHw = std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml";

/// Starts NPU_TOOL_PATH with `args` in its own process (output to `log`); its pid.
pid_t start_tool(const std::vector<std::string>& args, const std::string& log) {
  std::vector<std::string> all{NPU_TOOL_PATH};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = -1;
  posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  return pid;
}

/// The pids whose parent is `parent` (field 4 of /proc/PID/stat) and whose command line
/// contains `marker`. A child between fork and exec still has its parent's command line (which
/// names every model: `gpt2` matched a tiny_convnet run there under load in CI), so only
/// children whose command line differs from the parent's count.
std::set<pid_t> children_of(pid_t parent, const std::string& marker) {
  std::set<pid_t> kids;
  std::error_code ec;
  const std::string parent_cmdline = npu::test::read_file("/proc/" + std::to_string(parent) + "/cmdline");
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(e.path() / "stat");
    std::string stat;
    std::getline(in, stat);
    const auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    int ppid = 0;
    if (std::sscanf(stat.c_str() + close + 1, " %c %d", &state, &ppid) != 2 || ppid != parent) continue;
    const std::string cmdline = npu::test::read_file((e.path() / "cmdline").string());
    if (cmdline != parent_cmdline && cmdline.find(marker) != std::string::npos) kids.insert(pid_t(std::stoi(name)));
  }
  return kids;
}

/// Newest modification time of anything under `dir` (the folder included).
fs::file_time_type newest_write(const std::string& dir) {
  std::error_code ec;
  auto newest = fs::last_write_time(dir, ec);
  for (const auto& e : fs::recursive_directory_iterator(dir, ec)) newest = std::max(newest, e.last_write_time(ec));
  return newest;
}

bool alive(pid_t pid) { return ::kill(pid, 0) == 0 || errno != ESRCH; }

/// Starts the tool with `args`, sends `sig` to it alone once `children` of its children whose
/// command line holds `marker` run,
/// and checks what must hold however it is stopped: it exits with 128 + sig, no child outlives
/// it, and nothing under `out` changes after it exited. Its output.
std::string interrupt_when_running(const std::vector<std::string>& args, const std::string& out, int sig,
                                   std::size_t children, const std::string& marker = "") {
  const pid_t parent = start_tool(args, out + ".log");
  EXPECT_GT(parent, 0);
  std::set<pid_t> kids;
  for (int i = 0; i < 600 && kids.size() < children; ++i) {  // up to 60 s for the children to start
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    for (pid_t k : children_of(parent, marker)) kids.insert(k);
  }
  EXPECT_EQ(kids.size(), children) << npu::test::read_file(out + ".log");
  EXPECT_EQ(::kill(parent, sig), 0);  // the parent alone, as `kill PID` does
  int status = 0;
  EXPECT_EQ(waitpid(parent, &status, 0), parent);
  const std::string log = npu::test::read_file(out + ".log");
  EXPECT_TRUE(WIFEXITED(status)) << log;
  EXPECT_EQ(WEXITSTATUS(status), 128 + sig) << log;  // 130 SIGINT, 143 SIGTERM
  for (pid_t k : kids) EXPECT_FALSE(alive(k)) << "child " << k << " outlived its parent";
  // Nothing writes into the folder after the parent is gone.
  const auto at_exit = newest_write(out);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  EXPECT_EQ(newest_write(out), at_exit);
  return log;
}

class ExperimentInterrupt : public ::testing::TestWithParam<int> {};

}  // namespace

// GPT-2 prefill runs take seconds each (7 s on the 2-core test machine), so with -j 2 both
// children are still simulating when the signal comes; the third run has not started.
TEST_P(ExperimentInterrupt, TheSignalStopsTheChildrenBeforeTheParentExits) {
  const int sig = GetParam();
  const std::string out = npu::test::fresh_dir("exp-interrupt-" + std::to_string(sig));
  const std::string log = interrupt_when_running({"experiment", "--model", "gpt2", "--hw", kInterruptHw, "--strategies",
                                                  "none,conv-bn,residual", "-j", "2", "--out", out},
                                                 out, sig, 2);
  for (const auto& e : fs::directory_iterator(out + "/runs")) EXPECT_FALSE(fs::exists(e.path() / "run_summary.json"));
  // The summary of what finished (nothing here), marked incomplete everywhere.
  const auto rows = npu::test::read_json(out + "/summary.json");
  ASSERT_EQ(rows.size(), 3u);
  for (const auto& r : rows) EXPECT_EQ(r.at("status"), "interrupted") << r.dump();
  EXPECT_EQ(npu::test::read_file(out + "/summary.md").rfind("**INCOMPLETE**: interrupted by signal " + std::to_string(sig), 0), 0u);
  EXPECT_NE(npu::test::read_file(out + "/summary.csv").find(",residual,interrupted,"), std::string::npos);
  EXPECT_NE(log.find("INCOMPLETE: interrupted by signal " + std::to_string(sig)), std::string::npos) << log;
  EXPECT_NE(log.find("0 of 3 runs finished"), std::string::npos) << log;
}

INSTANTIATE_TEST_SUITE_P(Signals, ExperimentInterrupt, ::testing::Values(SIGINT, SIGTERM));

TEST(ExperimentResume, WhatFinishedBeforeAnInterruptIsSummarisedAndReused) {
  // -j 1 in plan order: tiny_convnet none and conv-bn (a fraction of a second each) finish,
  // then SIGTERM comes while gpt2 none runs; gpt2 conv-bn never starts.
  const std::string out = npu::test::fresh_dir("exp-interrupt-partial");
  const std::string tiny = std::string(NPU_SOURCE_DIR) + "/tests/data/tiny_convnet.onnx";
  const std::string log = interrupt_when_running({"experiment", "--model", tiny, "--model", "gpt2", "--hw", kInterruptHw,
                                                  "--strategies", "none,conv-bn", "--out", out},
                                                 out, SIGTERM, 1, "gpt2");
  EXPECT_NE(log.find("2 of 4 runs finished"), std::string::npos) << log;
  // The progress line counts the runs that finished, not those stopped or never started: it
  // jumped to [4/4], which reads as done in a batch log (new-user finding).
  EXPECT_NE(log.find("[2/4]"), std::string::npos) << log;
  EXPECT_EQ(log.find("[3/4]"), std::string::npos) << log;
  EXPECT_EQ(log.find("[4/4]"), std::string::npos) << log;
  std::vector<std::string> status;
  for (const auto& r : npu::test::read_json(out + "/summary.json"))
    status.push_back(r.at("model").get<std::string>() + ":" + r.at("status").get<std::string>());
  EXPECT_EQ(status, (std::vector<std::string>{"tiny_convnet:ok", "tiny_convnet:ok", "gpt2:interrupted",
                                              "gpt2:interrupted"}));
  EXPECT_TRUE(fs::exists(out + "/layers/tiny_convnet__edge-npu-ddr4__conv-bn.csv"));
  // The finished runs are not run again.
  const auto again = npu::test::run_npu({"experiment", "--model", tiny, "--hw", kInterruptHw, "--strategies", "none,conv-bn",
                                         "--out", out});
  ASSERT_EQ(again.status, 0) << again.output;
  EXPECT_NE(again.output.find("reused 2 of 2 runs"), std::string::npos) << again.output;
  EXPECT_EQ(again.output.find("INCOMPLETE"), std::string::npos) << again.output;
}

TEST(SweepInterrupt, SigtermStopsTheCellsAndTheSummaryListsThemMissing) {
  const std::string out = npu::test::fresh_dir("sweep-interrupt");
  const std::string spec = out + ".yaml";
  std::ofstream(spec) << "base: edge-npu-ddr4\naxes: {sram.capacity: [1MiB, 2MiB]}\nmodels: [gpt2]\n"
                         "strategies: [none]\n";
  const std::string log = interrupt_when_running({"sweep", spec, "-j", "2", "--out", out}, out, SIGTERM, 2);
  EXPECT_NE(log.find("npu sweep: interrupted by signal 15"), std::string::npos) << log;
  // Both cells were stopped mid-run: none ran to the end (it said "2 run now").
  EXPECT_NE(log.find(", 0 run now, 0 failed"), std::string::npos) << log;
  const auto rows = npu::test::read_json(out + "/summary.json");
  ASSERT_EQ(rows.size(), 2u) << rows.dump();
  for (const auto& r : rows) EXPECT_EQ(r.at("status"), "missing") << r.dump();
}

TEST(ExperimentResume, ARerunReusesTheRunsWhoseKeyIsUnchanged) {
  const std::string out = npu::test::fresh_dir("exp-resume");
  const std::string none_summary = out + "/runs/tiny_convnet__edge__none/run_summary.json";
  const std::string hw = out + "/edge.yaml";
  fs::copy_file(kInterruptHw, hw);
  auto run = [&](const std::string& strategies) {
    return npu::test::run_npu({"experiment", "--model", "tests/data/tiny_convnet.onnx", "--hw", hw, "--strategies", strategies,
                    "--out", out});
  };
  const auto first = run("none");
  ASSERT_EQ(first.status, 0) << first.output;
  const auto written = fs::last_write_time(none_summary);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));

  // none is done under the same key: reused, not run again; conv-bn runs.
  const auto second = run("none,conv-bn");
  ASSERT_EQ(second.status, 0) << second.output;
  EXPECT_NE(second.output.find("reused 1 of 2 runs"), std::string::npos) << second.output;
  EXPECT_NE(second.output.find("ran 1"), std::string::npos) << second.output;
  EXPECT_EQ(fs::last_write_time(none_summary), written);
  EXPECT_EQ(npu::test::read_json(out + "/runs/tiny_convnet__edge__none/cell.json").at("key"),
            npu::test::read_json(out + "/plan.json").at("cells").at(0).at("key"));

  // The config's content changes under the same file name: a new key, both run again.
  std::string yaml = npu::test::read_file(hw);
  std::ofstream(hw) << yaml << "\n# edited\n";  // a comment does not change the resolved config...
  const auto third = run("none,conv-bn");
  EXPECT_NE(third.output.find("reused 2 of 2 runs"), std::string::npos) << third.output;
  const auto sram = yaml.find("capacity: 1 MiB");
  ASSERT_NE(sram, std::string::npos) << yaml;
  std::ofstream(hw) << yaml.substr(0, sram) << "capacity: 2 MiB" << yaml.substr(sram + 15);  // ...a value does
  const auto fourth = run("none,conv-bn");
  ASSERT_EQ(fourth.status, 0) << fourth.output;
  EXPECT_EQ(fourth.output.find("reused"), std::string::npos) << fourth.output;
  EXPECT_NE(fs::last_write_time(none_summary), written);
}

TEST(ExperimentResume, AnInterruptedRunIsRunAgain) {
  // What an interruption leaves: cell.json of the planned key, no run_summary.json.
  const std::string out = npu::test::fresh_dir("exp-resume-interrupted");
  auto run = [&] {
    return npu::test::run_npu({"experiment", "--model", "tests/data/tiny_convnet.onnx", "--hw", kInterruptHw, "--strategies",
                    "none,conv-bn", "--out", out});
  };
  ASSERT_EQ(run().status, 0);
  fs::remove(out + "/runs/tiny_convnet__edge-npu-ddr4__conv-bn/run_summary.json");
  const auto again = run();
  ASSERT_EQ(again.status, 0) << again.output;
  EXPECT_NE(again.output.find("reused 1 of 2 runs"), std::string::npos) << again.output;
  EXPECT_TRUE(fs::exists(out + "/runs/tiny_convnet__edge-npu-ddr4__conv-bn/run_summary.json"));
  for (const auto& r : npu::test::read_json(out + "/summary.json")) EXPECT_EQ(r.at("status"), "ok");
}
