// `npu sweep` and `npu report` end to end on the tiny test network (each cell ~0.05 s):
// resume, shards (in one folder and in separate folders), speedups filled after the merge,
// missing, failed and conflicting cells, and experiment folders in a report.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "tool_runner.hpp"

namespace fs = std::filesystem;
using npu::test::read_file;
using npu::test::read_json;
using npu::test::run_npu;

namespace {

const std::string kSweepTiny = std::string(NPU_SOURCE_DIR) + "/tests/data/tiny_convnet.onnx";

/// A spec with 2 capacities x 2 channel counts x strategies [none, residual] = 8 cells.
std::string write_spec(const std::string& dir) {
  const std::string path = dir + "/spec.yaml";
  std::ofstream(path) << "base: edge-npu-ddr4\n"
                         "axes:\n  sram.capacity: [64KiB, 1MiB]\n  ddr.channels: [1, 2]\n"
                         "models: [" + kSweepTiny + "]\n"
                         "strategies: [none, residual]\n";
  return path;
}

/// summary.json rows by cell key.
std::map<std::string, nlohmann::json> rows_by_key(const std::string& dir) {
  std::map<std::string, nlohmann::json> out;
  for (const auto& row : read_json(dir + "/summary.json")) out[row.at("cell_key").get<std::string>()] = row;
  return out;
}

}  // namespace

TEST(SweepTool, RunsEveryCellAndWritesTheSummaryWithAxisColumns) {
  const std::string dir = npu::test::fresh_dir("sweep-all");
  auto r = run_npu({"sweep", write_spec(dir), "--out", dir + "/out", "-j", "2"});
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string csv = read_file(dir + "/out/summary.csv");
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "model,hw,strategy,status,ddr_read_mb,ddr_write_mb,ddr_total_mb,compulsory_mb,ddr_over_compulsory,latency_ms,cycles,"
            "speedup_vs_none,"
            "ddr_saved_pct,mac_utilisation,ddr_bw_utilisation,energy_mj,host_nodes,host_mac_pct,host_time_pct,plan_sram_bytes,error,"
            "sram.capacity,ddr.channels,cell_key");
  const auto rows = read_json(dir + "/out/summary.json");
  ASSERT_EQ(rows.size(), 8u);  // 2 x 2 configs x 2 strategies
  for (const auto& row : rows) {
    ASSERT_EQ(row.at("status"), "ok") << row.dump();
    EXPECT_TRUE(fs::exists(dir + "/out/cells/" + row.at("cell_key").get<std::string>() + "/run_summary.json"));
  }
  // plan_sram_bytes: the SRAM-plan ladder compiles for the configured size and its halves down
  // to 64 KiB (docs/compiler.md "Program-level plans"), so a 64 KiB cell runs a 65,536 B plan
  // and a 1 MiB cell one of 64 KiB ... 1,048,576 B, a power-of-two fraction of 1 MiB.
  for (const auto& row : rows) {
    const auto plan = row.at("plan_sram_bytes").get<std::uint64_t>();
    if (row["axes"]["sram.capacity"] == "64KiB") {
      EXPECT_EQ(plan, 65536u) << row.dump();
    } else {
      EXPECT_TRUE(plan >= 65536u && plan <= 1048576u && (1048576u % plan) == 0) << row.dump();
    }
  }
  // Row 1 is (64KiB, 1 channel, residual), its baseline row 0: speedup = latency ratio.
  EXPECT_EQ(rows[1]["axes"]["sram.capacity"], "64KiB");
  EXPECT_EQ(rows[1]["axes"]["ddr.channels"], "1");
  EXPECT_EQ(rows[1]["hw"], "edge-npu-ddr4__capacity-64KiB__channels-1");
  EXPECT_NEAR(rows[1]["speedup_vs_none"].get<double>(),
              rows[0]["latency_ms"].get<double>() / rows[1]["latency_ms"].get<double>(), 1e-12);
  // The channel axis reached the simulated config: DDR4-3200 x64 peaks at 3200e6 x 8 B =
  // 25.6 GB/s per channel (row 0: 1 channel, row 2: 2 channels).
  auto peak = [&](int i) {
    return read_json(dir + "/out/cells/" + rows[i]["cell_key"].get<std::string>() + "/run_summary.json")["peak_ddr_gbps"]
        .get<double>();
  };
  EXPECT_DOUBLE_EQ(peak(0), 25.6);
  EXPECT_DOUBLE_EQ(peak(2), 51.2);
}

TEST(SweepTool, ResumeRunsOnlyTheCellsWithoutAResult) {
  const std::string dir = npu::test::fresh_dir("sweep-resume");
  const std::string spec = write_spec(dir), out = dir + "/out";
  ASSERT_EQ(run_npu({"sweep", spec, "--out", out}).status, 0);
  const auto before = rows_by_key(out);
  const std::string gone = before.begin()->first;
  fs::remove_all(out + "/cells/" + gone);  // a lost cell
  // A torn cell: the child died before writing run_summary.json (it writes it last, atomically).
  const std::string torn = std::next(before.begin())->first;
  fs::remove(out + "/cells/" + torn + "/run_summary.json");
  const auto stamp = fs::last_write_time(out + "/cells/" + std::prev(before.end())->first + "/run_summary.json");
  auto r = run_npu({"sweep", spec, "--out", out});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("8 cells, 6 done before, 0 invalid, 2 run now, 0 failed"), std::string::npos) << r.output;
  // Progress off a terminal: one line per finished cell, counting the 6 done before.
  EXPECT_NE(r.output.find("[7/8] 0 failed"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("[8/8] 0 failed"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("[6/8]"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("running"), std::string::npos) << r.output;
  EXPECT_EQ(fs::last_write_time(out + "/cells/" + std::prev(before.end())->first + "/run_summary.json"), stamp);
  const auto after = rows_by_key(out);
  ASSERT_EQ(after.size(), 8u);
  // Deterministic simulation: the re-run cells give the same figures.
  for (const auto& key : {gone, torn}) {
    EXPECT_EQ(after.at(key)["status"], "ok");
    EXPECT_EQ(after.at(key)["cycles"], before.at(key)["cycles"]);
  }
  // Nothing left to do: a third run runs nothing.
  r = run_npu({"sweep", spec, "--out", out});
  EXPECT_NE(r.output.find("8 cells, 8 done before, 0 invalid, 0 run now"), std::string::npos) << r.output;
}

TEST(SweepTool, ShardsInOneFolderAndInTwoFoldersEqualTheFullRun) {
  const std::string dir = npu::test::fresh_dir("sweep-shards");
  const std::string spec = write_spec(dir);
  ASSERT_EQ(run_npu({"sweep", spec, "--out", dir + "/full"}).status, 0);
  for (const char* shard : {"0/2", "1/2"}) {
    ASSERT_EQ(run_npu({"sweep", spec, "--out", dir + "/shared", "--shard", shard}).status, 0);
    ASSERT_EQ(run_npu({"sweep", spec, "--out", dir + "/sep" + std::string(1, shard[0]), "--shard", shard}).status, 0);
  }
  const std::string full = read_file(dir + "/full/summary.csv");
  // Shards sharing a folder: the last one's summary covers every cell.
  EXPECT_EQ(read_file(dir + "/shared/summary.csv"), full);
  // Separate folders: each lacks the other's cells; the report over both is the full table.
  const std::string sep0 = read_file(dir + "/sep0/summary.csv");
  EXPECT_NE(sep0, full);
  EXPECT_NE(sep0.find(",missing,"), std::string::npos);
  auto r = run_npu({"report", dir + "/sep0", dir + "/sep1", "--out", dir + "/merged"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(read_file(dir + "/merged/summary.csv"), full);
  EXPECT_EQ(read_file(dir + "/merged/summary.md"), read_file(dir + "/full/summary.md"));
}

TEST(SweepTool, ReportFillsSpeedupsAcrossShardsAndListsMissingCells) {
  // Strategy is the fastest index: with 2 strategies, shard 0/2 holds every `none` cell and
  // shard 1/2 every `residual` cell, so shard 1 alone has no baseline.
  const std::string dir = npu::test::fresh_dir("sweep-fill");
  const std::string spec = write_spec(dir);
  ASSERT_EQ(run_npu({"sweep", spec, "--out", dir + "/s1", "--shard", "1/2"}).status, 0);
  for (const auto& row : read_json(dir + "/s1/summary.json")) {
    if (row["status"] != "ok") continue;
    EXPECT_EQ(row["strategy"], "residual");
    EXPECT_TRUE(row["speedup_vs_none"].is_null()) << row.dump();
  }
  // A report over shard 1 alone: 4 cells missing, listed, exit 0.
  auto r = run_npu({"report", dir + "/s1", "--out", dir + "/r1"});
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("8 cells: 4 ok, 0 failed, 0 invalid, 4 missing, 0 conflicting"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("WARNING: 4 cells missing"), std::string::npos) << r.output;
  std::size_t missing = 0;
  for (const auto& row : read_json(dir + "/r1/summary.json")) {
    if (row["status"] != "missing") continue;
    ++missing;
    EXPECT_EQ(row["strategy"], "none");
    EXPECT_NE(r.output.find("(key " + row["cell_key"].get<std::string>() + ")"), std::string::npos);
  }
  EXPECT_EQ(missing, 4u);
  // With shard 0: every residual row gets speedup = latency(none) / latency(residual) and
  // DDR saved = 100 (1 - DDR(residual) / DDR(none)), from the none row of its config.
  ASSERT_EQ(run_npu({"sweep", spec, "--out", dir + "/s0", "--shard", "0/2"}).status, 0);
  r = run_npu({"report", dir + "/s1", dir + "/s0", "--out", dir + "/r"});
  ASSERT_EQ(r.status, 0) << r.output;
  std::map<std::string, nlohmann::json> none_of;
  const auto rows = read_json(dir + "/r/summary.json");
  ASSERT_EQ(rows.size(), 8u);
  for (const auto& row : rows)
    if (row["strategy"] == "none") none_of[row["hw"]] = row;
  ASSERT_EQ(none_of.size(), 4u);
  for (const auto& row : rows) {
    ASSERT_EQ(row["status"], "ok");
    const auto& base = none_of.at(row["hw"]);
    EXPECT_NEAR(row["speedup_vs_none"].get<double>(), base["latency_ms"].get<double>() / row["latency_ms"].get<double>(),
                1e-12);
    EXPECT_NEAR(row["ddr_saved_pct"].get<double>(),
                100.0 * (1.0 - row["ddr_total_mb"].get<double>() / base["ddr_total_mb"].get<double>()), 1e-9);
  }
}

TEST(SweepTool, ConflictingDuplicatesAreReported) {
  const std::string dir = npu::test::fresh_dir("sweep-conflict");
  const std::string spec = write_spec(dir);
  ASSERT_EQ(run_npu({"sweep", spec, "--out", dir + "/a"}).status, 0);
  fs::copy(dir + "/a", dir + "/b", fs::copy_options::recursive);
  // Identical duplicates merge silently.
  auto r = run_npu({"report", dir + "/a", dir + "/b", "--out", dir + "/same"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(read_file(dir + "/same/summary.csv"), read_file(dir + "/a/summary.csv"));
  // One result changed in b: that cell is a conflict naming both folders; exit 1.
  const std::string key = read_json(dir + "/a/summary.json")[3]["cell_key"];
  const std::string p = dir + "/b/cells/" + key + "/run_summary.json";
  auto j = read_json(p);
  j["cycles"] = j["cycles"].get<std::uint64_t>() + 1;
  std::ofstream(p) << j.dump();
  r = run_npu({"report", dir + "/a", dir + "/b", "--out", dir + "/c"});
  EXPECT_EQ(r.status, 1) << r.output;
  const auto row = read_json(dir + "/c/summary.json")[3];
  EXPECT_EQ(row["status"], "conflict");
  EXPECT_NE(row["error"].get<std::string>().find("results differ (cycles "), std::string::npos) << row.dump();
  EXPECT_NE(r.output.find("WARNING: 1 cells have conflicting results"), std::string::npos) << r.output;
}

TEST(SweepTool, FailedCellsAreRecordedNotRepeatedAndInvalidConfigsListed) {
  // resnet50's first layers do not fit 4 KiB of SRAM (the compile fails); 1 KiB is below the
  // minimal tile of 2208 bytes (an invalid config, never run); the tiny network fits 4 KiB.
  const std::string dir = npu::test::fresh_dir("sweep-failed");
  std::ofstream(dir + "/spec.yaml") << "base: edge-npu-ddr4\naxes: {sram.capacity: [1KiB, 4KiB]}\n"
                                       "models: [resnet50, " + kSweepTiny + "]\nstrategies: [none]\n";
  auto r = run_npu({"sweep", dir + "/spec.yaml", "--out", dir + "/out"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("4 cells, 0 done before, 2 invalid, 2 run now, 1 failed"), std::string::npos) << r.output;
  const auto rows = read_json(dir + "/out/summary.json");
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0]["status"], "invalid");
  EXPECT_NE(rows[0]["error"].get<std::string>().find("smaller than one minimal tile of 2208 bytes"), std::string::npos);
  EXPECT_EQ(rows[1]["status"], "failed");
  EXPECT_NE(rows[1]["error"].get<std::string>().find("SRAM"), std::string::npos) << rows[1].dump();
  EXPECT_EQ(rows[3]["status"], "ok");
  EXPECT_TRUE(fs::exists(dir + "/out/cells/" + rows[1]["cell_key"].get<std::string>() + "/failed.json"));
  // A re-run does not repeat the failure (still exit 1); --retry-failed does.
  r = run_npu({"sweep", dir + "/spec.yaml", "--out", dir + "/out"});
  EXPECT_NE(r.output.find("0 run now, 1 failed"), std::string::npos) << r.output;
  r = run_npu({"sweep", dir + "/spec.yaml", "--out", dir + "/out", "--retry-failed"});
  EXPECT_NE(r.output.find("1 run now, 1 failed"), std::string::npos) << r.output;
}

TEST(SweepTool, ReportNamesRowsThatShareTheirLabelsButAreDifferentCells) {
  // A preset copied into another folder and edited keeps its file name: the two experiments'
  // rows read "tiny edge-npu-ddr4 none" alike; the report must say they differ (new-user test:
  // two identical-looking rows and "0 conflicting").
  const std::string dir = npu::test::fresh_dir("report-label-clash");
  fs::create_directories(dir + "/alt");
  std::string text = read_file(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  const auto p = text.find("capacity: 1 MiB");
  ASSERT_NE(p, std::string::npos);
  text.replace(p, std::string("capacity: 1 MiB").size(), "capacity: 512 KiB");
  std::ofstream(dir + "/alt/edge-npu-ddr4.yaml") << text;
  for (const auto& [hw, out] : {std::pair<std::string, std::string>{"configs/edge-npu-ddr4.yaml", dir + "/a"},
                                {dir + "/alt/edge-npu-ddr4.yaml", dir + "/b"}})
    ASSERT_EQ(run_npu({"experiment", "--model", kSweepTiny, "--hw", hw, "--strategies", "none", "--out", out}).status,
              0);
  const auto r = run_npu({"report", dir + "/a", dir + "/b", "--out", dir + "/r"});
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string label = "'" + fs::path(kSweepTiny).stem().string() + " edge-npu-ddr4 none'";
  EXPECT_NE(r.output.find("WARNING: 2 rows are labelled " + label + " but are different cells"), std::string::npos)
      << r.output;
  EXPECT_NE(read_file(dir + "/r/summary.md").find("rows are labelled"), std::string::npos);
}

TEST(SweepTool, ReportOverAnExperimentFolderKeepsItsFigures) {
  // The experiment's own summary is the reference: the report's experiment columns match it.
  const std::string dir = npu::test::fresh_dir("report-experiment");
  auto r = run_npu({"experiment", "--model", kSweepTiny, "--hw", "configs/edge-npu-ddr4.yaml", "--strategies",
                    "none,conv-bn,residual", "--out", dir + "/e", "--shard", "1/2"});
  ASSERT_EQ(r.status, 0) << r.output;
  ASSERT_EQ(run_npu({"experiment", "--model", kSweepTiny, "--hw", "configs/edge-npu-ddr4.yaml", "--strategies",
                     "none,conv-bn,residual", "--out", dir + "/full"})
                .status,
            0);
  r = run_npu({"report", dir + "/full", "--out", dir + "/r"});
  ASSERT_EQ(r.status, 0) << r.output;
  std::istringstream a(read_file(dir + "/full/summary.csv")), b(read_file(dir + "/r/summary.csv"));
  std::string la, lb;
  while (std::getline(a, la)) {
    ASSERT_TRUE(std::getline(b, lb));
    const auto fa = npu::test::split_csv(la), fb = npu::test::split_csv(lb);
    // The experiment's last column is earlier_run (kept from an earlier run into the folder); the
    // report's is cell_key (no axes). The 18 columns before them are the same figures.
    ASSERT_EQ(fb.size(), fa.size());
    for (std::size_t i = 0; i + 1 < fa.size(); ++i) EXPECT_EQ(fb[i], fa[i]) << la;
  }
  // The shard folder alone (conv-bn only) lists the other two cells as missing; merged with the
  // full run its cell is the same key with the same figures.
  r = run_npu({"report", dir + "/e", "--out", dir + "/r1"});
  EXPECT_NE(r.output.find("3 cells: 1 ok, 0 failed, 0 invalid, 2 missing, 0 conflicting"), std::string::npos)
      << r.output;
  r = run_npu({"report", dir + "/e", dir + "/full", "--out", dir + "/r2"});
  EXPECT_NE(r.output.find("3 cells: 3 ok, 0 failed, 0 invalid, 0 missing, 0 conflicting"), std::string::npos)
      << r.output;
}

TEST(SweepTool, BadSpecAndFoldersAreRejectedBeforeWork) {
  const std::string dir = npu::test::fresh_dir("sweep-bad");
  std::ofstream(dir + "/spec.yaml") << "base: edge-npu-ddr4\naxes: {sram.capcity: [1MiB]}\nmodels: [resnet18]\n";
  auto r = run_npu({"sweep", dir + "/spec.yaml", "--out", dir + "/out"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find(dir + "/spec.yaml:2:8: error: axis 'sram.capcity' is not a config key"), std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(dir + "/out"));
  r = run_npu({"sweep", write_spec(dir), "--out", dir + "/out", "--shard", "2/2"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("--shard '2/2': error: expected i/N with 0 <= i < N"), std::string::npos) << r.output;
  r = run_npu({"report", dir, "--out", dir + "/r"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find(dir + ": error: no plan.json"), std::string::npos) << r.output;
}

TEST(SweepTool, ReportNamesAFileGivenAsAFolder) {
  const std::string dir = npu::test::fresh_dir("report-file");
  std::ofstream(dir + "/f.csv") << "x\n";
  auto r = run_npu({"report", dir + "/f.csv", "--out", dir + "/r"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("f.csv: error: not a folder\n  give the --out folder of an experiment or sweep"),
            std::string::npos) << r.output;
  r = run_npu({"report", dir + "/none", "--out", dir + "/r"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("none: error: no such folder"), std::string::npos) << r.output;
}

// Two runs of one sweep into one folder at once wrote the same cells twice; one exited 1 with
// no error text (new-user finding). Now a sweep holds the folder's lock as an experiment does,
// and each shard its own: the shards of one sweep still share a folder.
TEST(SweepTool, ASecondSweepIntoABusyFolderIsRefusedButItsShardsShareIt) {
  const std::string dir = npu::test::fresh_dir("sweep-locked");
  const std::string out = dir + "/out";
  fs::create_directories(out);
  // Another run's lock, held by flock(1) for 20 s.
  const auto hold = [&](const std::string& name) {
    std::ofstream(out + "/" + name) << "pid=4242\nstarted=2026-01-02 03:04:05 UTC\ncommand=npu sweep x\n";
    const std::string holder = "flock '" + out + "/" + name + "' sleep 20 </dev/null >/dev/null 2>&1 & echo $! > '" +
                               dir + "/holder.pid'";
    return npu::test::run_shell("(" + holder + ") && sleep 0.5").status;
  };
  const auto release = [&] { npu::test::run_shell("kill $(cat '" + dir + "/holder.pid') 2>/dev/null; sleep 0.2"); };
  ASSERT_EQ(hold(".lock"), 0);
  const auto whole = run_npu({"sweep", write_spec(dir), "--out", out});
  release();
  EXPECT_EQ(whole.status, 1) << whole.output;
  EXPECT_NE(whole.output.find("--out '" + out + "': error: another npu sweep or experiment is writing into this "
                              "folder (pid 4242, started 2026-01-02 03:04:05 UTC: npu sweep x)"),
            std::string::npos)
      << whole.output;
  ASSERT_EQ(hold(".lock.shard-0-of-2"), 0);
  const auto same_shard = run_npu({"sweep", write_spec(dir), "--out", out, "--shard", "0/2"});
  const auto other_shard = run_npu({"sweep", write_spec(dir), "--out", out, "--shard", "1/2"});
  release();
  EXPECT_EQ(same_shard.status, 1) << same_shard.output;
  EXPECT_NE(same_shard.output.find("error: another npu sweep of shard 0/2 is writing into this folder"),
            std::string::npos)
      << same_shard.output;
  EXPECT_EQ(other_shard.status, 0) << other_shard.output;
}

// Two sweeps that plan one cell through different axes: the merged report labels it with both
// (it kept the first folder's labels alone, leaving the other axis blank: a new-user finding).
TEST(SweepTool, ReportLabelsACellPlannedByTwoSweepsWithBothTheirAxes) {
  const std::string dir = npu::test::fresh_dir("sweep-axes");
  const auto spec = [&](const std::string& name, const std::string& axes) {
    std::ofstream(dir + "/" + name) << "base: edge-npu-ddr4\naxes:\n" << axes << "models: [" + kSweepTiny + "]\n"
                                    << "strategies: [none]\n";
    return dir + "/" + name;
  };
  // The edge preset has 1 MiB of SRAM and one DDR channel: (1MiB, 1 channel) is in both sweeps.
  ASSERT_EQ(run_npu({"sweep", spec("a.yaml", "  sram.capacity: [64KiB, 1MiB]\n"), "--out", dir + "/a"}).status, 0);
  ASSERT_EQ(run_npu({"sweep", spec("b.yaml", "  ddr.channels: [1, 2]\n"), "--out", dir + "/b"}).status, 0);
  const auto r = run_npu({"report", dir + "/a", dir + "/b", "--out", dir + "/rep"});
  ASSERT_EQ(r.status, 0) << r.output;
  const auto rows = read_json(dir + "/rep/summary.json");
  ASSERT_EQ(rows.size(), 3u);  // 2 + 2 cells, one shared
  int both = 0;
  for (const auto& row : rows) {
    const auto& axes = row.at("axes");
    if (axes.contains("sram.capacity") && axes.contains("ddr.channels")) {
      ++both;
      EXPECT_EQ(axes.at("sram.capacity").get<std::string>(), "1MiB");
      EXPECT_EQ(axes.at("ddr.channels").get<std::string>(), "1");
    }
  }
  EXPECT_EQ(both, 1) << rows.dump();
}

// A second spec run into the folder of a first: the first's cells that the second does not plan
// stay on disk but leave the summary; the run says so (new-user finding: no word of them).
TEST(SweepTool, ASecondSpecIntoTheFolderNamesTheEarlierCellsItLeavesOut) {
  const std::string dir = npu::test::fresh_dir("sweep-respec");
  const auto spec = [&](const std::string& name, const std::string& channels) {
    std::ofstream(dir + "/" + name) << "base: edge-npu-ddr4\naxes:\n  ddr.channels: " << channels
                                    << "\nmodels: [" + kSweepTiny + "]\nstrategies: [none]\n";
    return dir + "/" + name;
  };
  ASSERT_EQ(run_npu({"sweep", spec("a.yaml", "[1, 2]"), "--out", dir + "/out"}).status, 0);
  // A folder of the user's own under cells/ (no cell.json) is no earlier spec's cell (re-test finding).
  std::filesystem::create_directories(dir + "/out/cells/mine");
  const auto again = run_npu({"sweep", spec("a.yaml", "[1, 2]"), "--out", dir + "/out"});
  EXPECT_EQ(again.output.find("are no cell of this spec's plan"), std::string::npos) << again.output;
  // [1, 4]: the 2-channel cell of the first spec is no cell of the second.
  const auto other = run_npu({"sweep", spec("b.yaml", "[1, 4]"), "--out", dir + "/out"});
  ASSERT_EQ(other.status, 0) << other.output;
  EXPECT_NE(other.output.find("npu sweep: note: 1 folder(s) in " + dir + "/out/cells are no cell of this spec's plan"),
            std::string::npos)
      << other.output;
}
