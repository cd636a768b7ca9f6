// `npu experiment` end to end: the real ONNX networks on every preset and strategy, the
// summary's arithmetic, and bad input rejected before any work starts.
#include <gtest/gtest.h>

#include <fstream>

#include <filesystem>

#include "shared_data.hpp"
#include "tool_runner.hpp"

namespace fs = std::filesystem;
using npu::test::run_npu;

namespace {
const std::vector<std::string> kPresets{"configs/edge-npu-ddr4.yaml", "configs/mobile-npu-lpddr4.yaml",
                                        "configs/tpu-v1-like.yaml"};
const std::vector<std::string> kStrategies{"none", "conv-bn", "conv-act", "conv-bn-act", "residual"};

/// Runs `npu experiment` with `args` and expects exit 1, `needle` in the message, and no
/// run started (no runs/ folder in `out`).
void expect_rejected(std::vector<std::string> args, const std::string& out, const std::string& needle) {
  args.insert(args.begin(), "experiment");
  auto r = run_npu(args);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find(needle), std::string::npos) << "message: " << r.output;
  EXPECT_FALSE(fs::exists(fs::path(out) / "runs")) << "work started despite bad input";
}
}  // namespace

// One case per real network (ctest runs them in parallel; together they were one 255 s test).
class RealOnnxModel : public ::testing::TestWithParam<std::string> {};

TEST_P(RealOnnxModel, OnEveryPresetAndStrategy) {
  const std::string models = npu::test::shared_path("models");
  NPU_REQUIRE_SHARED_OR_SKIP(models + "/" + GetParam() + ".onnx");
  const std::string out = npu::test::fresh_dir("onnx-" + GetParam());
  std::vector<std::string> args{"experiment", "--out", out, "-j", "2", "--strategies",
                                "none,conv-bn,conv-act,conv-bn-act,residual", "--model",
                                models + "/" + GetParam() + ".onnx"};
  for (const auto& h : kPresets) {
    args.push_back("--hw");
    args.push_back(h);
  }
  auto r = run_npu(args);
  ASSERT_EQ(r.status, 0) << r.output;
  auto summary = npu::test::read_json(out + "/summary.json");
  ASSERT_EQ(summary.size(), 3u * 5u);  // 3 presets x 5 strategies
  for (const auto& row : summary) {
    SCOPED_TRACE(row.at("model").get<std::string>() + " " + row.at("hw").get<std::string>() + " " +
                 row.at("strategy").get<std::string>());
    ASSERT_EQ(row.at("status"), "ok") << row.dump();
    EXPECT_GT(row.at("latency_ms").get<double>(), 0);
    EXPECT_GT(row.at("ddr_total_mb").get<double>(), 0);
    // Physical bounds: utilisations are fractions of peak.
    EXPECT_LE(row.at("mac_utilisation").get<double>(), 1.0);
    EXPECT_LE(row.at("ddr_bw_utilisation").get<double>(), 1.0);
    // Fusion never adds DDR traffic: saved % >= 0 against the none run.
    EXPECT_GE(row.at("ddr_saved_pct").get<double>(), -1e-9);
    // speedup_vs_none is the ratio of latencies (checked on the row itself).
    if (row.at("strategy") == "none") {
      EXPECT_DOUBLE_EQ(row.at("speedup_vs_none").get<double>(), 1.0);
    }
  }
  for (const auto& row : summary)
    EXPECT_TRUE(fs::exists(fs::path(out) / "layers" / (fs::path(row.at("run_dir").get<std::string>()).filename().string() + ".csv")));
  EXPECT_TRUE(fs::exists(out + "/summary.csv"));
  EXPECT_TRUE(fs::exists(out + "/summary.md"));
}

INSTANTIATE_TEST_SUITE_P(Shared, RealOnnxModel, ::testing::Values("resnet50_bn", "mobilenet_v2_bn", "yolov5s_bn"));

TEST(ExperimentTool, RepeatedTraceKindIsRefusedLikeARepeatedStrategy) {
  // --trace ddr,ddr once crashed (the same sink registered twice), then was deduplicated
  // silently while --strategies none,none is refused: now a kind given twice is refused too.
  const std::string out = npu::test::fresh_dir("trace-twice");
  auto r = run_npu({"simulate", "--model", "tests/data/tiny_convnet.onnx", "--hw", kPresets[0], "--strategy", "none",
                    "--out", out + "/s", "--trace", "ddr,ddr,timeline", "--quiet"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("--trace 'ddr': error: given twice; give each trace kind once"), std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(out + "/s/ddr.csv"));
  r = run_npu({"experiment", "--model", "tests/data/tiny_convnet.onnx", "--hw", kPresets[0], "--out", out + "/e",
               "--trace", "timeline,timeline"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("--trace 'timeline': error: given twice"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out + "/e/runs"));
  r = run_npu({"run", "tests/isa/data/double_buffered_conv.npuasm", "--hw", kPresets[0], "--out", out + "/r",
               "--trace", "vcd,vcd"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("--trace: error: 'vcd' is given twice"), std::string::npos) << r.output;
}

TEST(ExperimentTool, SummaryRatiosFollowFromTheRows) {
  const std::string out = npu::test::fresh_dir("ratios");
  auto r = run_npu({"experiment", "--model", "tests/data/tiny_convnet.onnx", "--hw", kPresets[0], "--strategies",
                    "none,residual", "--out", out});
  ASSERT_EQ(r.status, 0) << r.output;
  auto s = npu::test::read_json(out + "/summary.json");
  ASSERT_EQ(s.size(), 2u);
  const auto& none = s[0];
  const auto& fused = s[1];
  // speedup = latency(none) / latency(fused); saved = 100 (1 - DDR(fused) / DDR(none)).
  EXPECT_NEAR(fused["speedup_vs_none"].get<double>(), none["latency_ms"].get<double>() / fused["latency_ms"].get<double>(), 1e-9);
  EXPECT_NEAR(fused["ddr_saved_pct"].get<double>(),
              100.0 * (1.0 - fused["ddr_total_mb"].get<double>() / none["ddr_total_mb"].get<double>()), 1e-9);
  EXPECT_NEAR(fused["ddr_total_mb"].get<double>(), fused["ddr_read_mb"].get<double>() + fused["ddr_write_mb"].get<double>(), 1e-9);
  // latency in ms = cycles / 1 GHz (edge preset core clock).
  EXPECT_NEAR(fused["latency_ms"].get<double>(), fused["cycles"].get<double>() / 1e6, 1e-6);
}

TEST(ExperimentTool, FailedRunIsReportedAndOthersComplete) {
  // A well-formed YAML strategy naming a pass list that is valid, plus a model that exists
  // but whose SRAM is too small for one layer: use a config with a tiny SRAM that still
  // validates (the minimal tile fits) but cannot hold a ResNet-50 conv7x7 input band.
  const std::string out = npu::test::fresh_dir("partial");
  const std::string cfg = out + "/small-sram.yaml";
  {
    std::string text = npu::test::read_file(std::string(NPU_SOURCE_DIR) + "/" + kPresets[0]);
    auto p = text.find("capacity:");
    ASSERT_NE(p, std::string::npos);
    auto e = text.find('\n', p);
    text.replace(p, e - p, "capacity: 4KiB");
    std::ofstream(cfg) << text;
  }
  auto r = run_npu({"experiment", "--model", "tests/data/tiny_convnet.onnx", "--model", "resnet50", "--hw", cfg,
                    "--strategies", "none", "--out", out + "/res"});
  EXPECT_EQ(r.status, 1) << r.output;
  auto s = npu::test::read_json(out + "/res/summary.json");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0]["status"], "ok") << s[0].dump();  // the tiny network fits 4 KiB tiles
  EXPECT_EQ(s[1]["status"], "failed");
  EXPECT_NE(s[1]["error"].get<std::string>().find("SRAM"), std::string::npos) << s[1].dump();
}

TEST(ExperimentTool, MissingModelFileIsRejectedBeforeWork) {
  const std::string out = npu::test::fresh_dir("bad-model");
  expect_rejected({"--model", "no/such/model.onnx", "--hw", kPresets[0], "--out", out}, out, "no such file");
}

TEST(ExperimentTool, UnknownModelNameListsTheZoo) {
  const std::string out = npu::test::fresh_dir("bad-zoo");
  expect_rejected({"--model", "resnet51", "--hw", kPresets[0], "--out", out}, out, "resnet50");
}

TEST(ExperimentTool, UnknownStrategyIsRejectedBeforeWork) {
  const std::string out = npu::test::fresh_dir("bad-strategy");
  expect_rejected({"--model", "resnet50", "--hw", kPresets[0], "--strategies", "none,conv-bn-relu", "--out", out}, out,
                  "strategy 'conv-bn-relu': error: unknown strategy");
  expect_rejected({"--model", "resnet50", "--hw", kPresets[0], "--strategies", "none,,residual", "--out", out}, out,
                  "empty entry");
  expect_rejected({"--model", "resnet50", "--hw", kPresets[0], "--strategies", "none,residual,none", "--out", out}, out,
                  "--strategies 'none': error: given twice");
}

TEST(ExperimentTool, SameModelTwiceIsRejectedBeforeWork) {
  // Both would write runs/resnet18__...: the run folders and summary rows would collide.
  const std::string out = npu::test::fresh_dir("twice");
  expect_rejected({"--model", "resnet18", "--model", "resnet18", "--hw", kPresets[0], "--out", out}, out,
                  "--model 'resnet18': error: given twice");
}

TEST(ExperimentTool, InvalidConfigIsRejectedBeforeWork) {
  const std::string out = npu::test::fresh_dir("bad-config");
  const std::string cfg = out + "/bad.yaml";
  std::string text = npu::test::read_file(std::string(NPU_SOURCE_DIR) + "/" + kPresets[0]);
  text.replace(text.find("mac_array:"), 10, "mac_aray:");
  std::ofstream(cfg) << text;
  expect_rejected({"--model", "resnet50", "--hw", cfg, "--out", out}, out, "did you mean 'mac_array'");
}

TEST(ExperimentTool, UnwritableOutputFolderIsRejectedBeforeWork) {
  const std::string base = npu::test::fresh_dir("bad-out");
  const std::string file = base + "/a-file";
  std::ofstream(file) << "x";
  auto r = run_npu({"experiment", "--model", "resnet50", "--hw", kPresets[0], "--out", file + "/sub"});
  EXPECT_EQ(r.status, 1) << r.output;
  // The message names the file in the way (before issue 27's probe: "cannot be created or written").
  EXPECT_NE(r.output.find("cannot create the output folder: '" + file + "' exists and is not a folder"),
            std::string::npos)
      << r.output;
}

TEST(ExperimentTool, BadJobsShardAndTraceAreRejected) {
  const std::string out = npu::test::fresh_dir("bad-flags");
  expect_rejected({"--model", "resnet50", "--hw", kPresets[0], "--out", out, "-j", "0"}, out, "--jobs: '0' is not an integer from 1 to 1024");
  expect_rejected({"--model", "resnet50", "--hw", kPresets[0], "--out", out, "--shard", "3/2"}, out, "--shard '3/2'");
  expect_rejected({"--model", "resnet50", "--hw", kPresets[0], "--out", out, "--trace", "ddr,foo"}, out,
                  "--trace 'foo'");
}

TEST(ExperimentTool, ShardsPartitionTheJobs) {
  // 1 model x 1 hw x 3 strategies split 2 ways: shard 0 takes jobs 0 and 2, shard 1 job 1.
  const std::string a = npu::test::fresh_dir("shard0"), b = npu::test::fresh_dir("shard1");
  for (auto [dir, shard] : {std::pair{a, "0/2"}, std::pair{b, "1/2"}}) {
    auto r = run_npu({"experiment", "--model", "tests/data/tiny_convnet.onnx", "--hw", kPresets[0], "--strategies",
                      "none,conv-bn,residual", "--out", dir, "--shard", shard});
    ASSERT_EQ(r.status, 0) << r.output;
  }
  auto sa = npu::test::read_json(a + "/summary.json"), sb = npu::test::read_json(b + "/summary.json");
  ASSERT_EQ(sa.size(), 2u);
  ASSERT_EQ(sb.size(), 1u);
  EXPECT_EQ(sa[0]["strategy"], "none");
  EXPECT_EQ(sa[1]["strategy"], "residual");
  EXPECT_EQ(sb[0]["strategy"], "conv-bn");
}

TEST(ExperimentTool, AShardWithNoRunSaysSo) {
  // 1 model x 1 hw x 2 strategies in 3 shards: runs 0 and 1 go to shards 0 and 1, none to shard 2.
  const std::string dir = npu::test::fresh_dir("shard-empty");
  auto r = run_npu({"experiment", "--model", "tests/data/tiny_convnet.onnx", "--hw", kPresets[0], "--strategies",
                    "none,conv-bn", "--out", dir, "--shard", "2/3"});
  ASSERT_EQ(r.status, 0) << r.output;  // a Slurm array wider than the experiment is not an error
  EXPECT_NE(r.output.find("npu experiment: shard 2/3 holds none of the 2 run(s) (run k goes to shard k mod N, "
                          "counting from 0): nothing ran in this shard; the table is empty"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(npu::test::read_json(dir + "/summary.json").size(), 0u);
}

TEST(ExperimentTool, APrecisionKeyThatAppliesToLessSaysSoUnderTheTable) {
  // An fp16 edge config with weight_dtype int4: tiny_convnet's CONV weights stay fp16 (compiler
  // precision_warnings.hpp); the children's warning reaches the table as a `precision:` line.
  const std::string dir = npu::test::fresh_dir("precision-line");
  std::string text = npu::test::read_file(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  const auto p = text.find("  dtype: int8");
  ASSERT_NE(p, std::string::npos);
  text.replace(p, std::string("  dtype: int8").size(), "  dtype: fp16\n  weight_dtype: int4");
  std::ofstream(dir + "/w4.yaml") << text;
  auto r = run_npu({"experiment", "--model", "tests/data/tiny_convnet.onnx", "--hw", dir + "/w4.yaml", "--strategies",
                    "none,conv-bn", "--out", dir + "/e"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("precision: tiny_convnet w4: mac_array.weight_dtype int4 applies to "), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("B of CONV weights"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("stay in mac_array.dtype fp16"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("(2 run(s))"), std::string::npos) << r.output;
  EXPECT_NE(npu::test::read_file(dir + "/e/summary.md").find("precision: tiny_convnet w4:"), std::string::npos);
}

TEST(ExperimentTool, PlotScriptDrawsEveryPlotKind) {
  if (npu::test::run_shell("/usr/bin/python3 -c 'import matplotlib, pandas'").status != 0)
    GTEST_SKIP() << "Debian's python3-matplotlib / python3-pandas are not installed (scripts/setup.sh installs them)";
  const std::string out = npu::test::fresh_dir("plots");
  auto r = run_npu({"experiment", "--model", "tests/data/tiny_convnet.onnx", "--hw", kPresets[0], "--strategies",
                    "none,conv-bn-act", "--out", out});
  ASSERT_EQ(r.status, 0) << r.output;
  auto p = npu::test::run_shell(std::string("/usr/bin/python3 '") + NPU_SOURCE_DIR + "/scripts/plot_experiment.py' '" + out + "'");
  ASSERT_EQ(p.status, 0) << p.output;
  // One strategy comparison per model, one per-layer plot per run, one roofline per model x hw.
  for (const char* png : {"strategies_tiny_convnet.png", "layers_tiny_convnet__edge-npu-ddr4__none.png",
                          "layers_tiny_convnet__edge-npu-ddr4__conv-bn-act.png", "roofline_tiny_convnet__edge-npu-ddr4.png"}) {
    const fs::path f = fs::path(out) / "plots" / png;
    ASSERT_TRUE(fs::exists(f)) << png << "\n" << p.output;
    EXPECT_EQ(npu::test::read_file(f.string()).substr(1, 3), "PNG") << png;
  }
  // Not an experiment folder: a clear error, exit 1.
  auto bad = npu::test::run_shell(std::string("/usr/bin/python3 '") + NPU_SOURCE_DIR + "/scripts/plot_experiment.py' /nonexistent");
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.output.find("no summary.csv"), std::string::npos) << bad.output;
}

TEST(ExperimentTool, InputShapeReachesEveryRun) {
  // The experiment's run equals `npu simulate` with the same --input-shape (batch 2, 64x64).
  const std::string out = npu::test::fresh_dir("exp-input-shape");
  auto r = run_npu({"experiment", "--model", "resnet18", "--hw", "configs/edge-npu-ddr4.yaml", "--strategies", "none",
                    "--input-shape", "input=2x3x64x64", "--out", out});
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string one = npu::test::fresh_dir("sim-input-shape");
  auto s = run_npu({"simulate", "--model", "resnet18", "--hw", "configs/edge-npu-ddr4.yaml", "--strategy", "none",
                    "--input-shape", "input=2x3x64x64", "--out", one, "--quiet"});
  ASSERT_EQ(s.status, 0) << s.output;
  const auto a = npu::test::read_json(out + "/runs/resnet18__edge-npu-ddr4__none/run_summary.json");
  const auto b = npu::test::read_json(one + "/run_summary.json");
  EXPECT_EQ(a.at("macs"), b.at("macs"));
  EXPECT_EQ(a.at("cycles"), b.at("cycles"));
  // A malformed shape is rejected before any run starts.
  expect_rejected({"--model", "resnet18", "--hw", "configs/edge-npu-ddr4.yaml", "--input-shape", "bad", "--out",
                   npu::test::fresh_dir("exp-bad-shape")},
                  npu::test::fresh_dir("exp-bad-shape"), "--input-shape 'bad': error: missing 'NAME='");
}

TEST(SimulateTool, AFailedRunLeavesNoEarlierResultsInItsFolder) {
  // A good run, then a run into the same folder that fails (a Conv with an attribute ONNX does
  // not define): the folder must not keep the first run's run_summary.json.
  const std::string models = npu::test::shared_path("models");
  NPU_REQUIRE_SHARED_OR_SKIP(models + "/cases/legality/conv_with_activation_attr.onnx");
  const std::string dir = npu::test::fresh_dir("sim-stale");
  ASSERT_EQ(run_npu({"simulate", "--model", "resnet18", "--hw", "configs/edge-npu-ddr4.yaml", "--out", dir, "--quiet"}).status, 0);
  ASSERT_TRUE(fs::exists(dir + "/run_summary.json"));
  auto r = run_npu({"simulate", "--model", models + "/cases/legality/conv_with_activation_attr.onnx", "--hw", "configs/edge-npu-ddr4.yaml",
                    "--out", dir, "--quiet"});
  EXPECT_NE(r.status, 0);
  EXPECT_FALSE(fs::exists(dir + "/run_summary.json"));
  EXPECT_FALSE(fs::exists(dir + "/run.json"));
}

TEST(SimulateTool, ARerunRemovesOnlyTheOutputFilesItWrites) {
  // RUNDIR/outputs/ holds what --with-data writes (NAME.npy, NAME.pb); a rerun removes those
  // (stale) and leaves a file of the user's there (a newcomer's file was deleted with the folder).
  const std::string dir = npu::test::fresh_dir("sim-outputs-kept");
  fs::create_directories(dir + "/outputs");
  std::ofstream(dir + "/outputs/mine.txt") << "keep\n";
  std::ofstream(dir + "/outputs/y.npy") << "stale\n";
  ASSERT_EQ(run_npu({"simulate", "--model", "tests/data/tiny_convnet.onnx", "--hw", "configs/edge-npu-ddr4.yaml",
                     "--out", dir, "--quiet"}).status, 0);
  EXPECT_TRUE(fs::exists(dir + "/outputs/mine.txt"));
  EXPECT_FALSE(fs::exists(dir + "/outputs/y.npy"));
}

// Without --strategies an experiment runs every built-in strategy, depth-first included, in
// the order `npu compile --help` lists them (issue 11: depth-first among the defaults).
TEST(ExperimentTool, DefaultStrategiesAreAllSevenBuiltIns) {
  const std::string out = npu::test::fresh_dir("default-strategies");
  auto r = run_npu({"experiment", "--model", "tests/data/tiny_convnet.onnx", "--hw", kPresets[0], "--out", out});
  ASSERT_EQ(r.status, 0) << r.output;
  const auto s = npu::test::read_json(out + "/summary.json");
  const std::vector<std::string> expected{"none",     "conv-bn",     "conv-act",   "conv-bn-act",
                                          "residual", "depth-first", "transformer"};
  ASSERT_EQ(s.size(), expected.size()) << s.dump();
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(s[i].at("strategy"), expected[i]) << i;
}
