// The network's compulsory DDR bytes (inputs, weights and parameters, outputs each moved
// once) and the ratio DDR bytes / compulsory, per run: run.json, run_summary.json, the
// experiment summary and `npu report` (docs/experiment.md).
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <string>

#include "tool_runner.hpp"

using npu::test::read_file;
using npu::test::read_json;
using npu::test::run_npu;

namespace {

// tests/data/tiny_convnet.onnx on an int8 preset (1 byte per activation and weight, 4 bytes
// per bias / BN scale and shift, docs/isa.md):
//   input 1x3x32x32                       3072
//   layer1 conv 8x3x3x3 = 216, layer2 conv 8x8x3x3 = 576, layer3 conv 16x8x1x1 = 128,
//   layer4 depthwise 16x1x3x3 = 144, fc 10x16 = 160 + bias 10 x 4 = 40      1264
//   output 1x10                             10
// `none` keeps each BN as scale and shift: 2 x 4 B per channel, 8 + 8 + 16 + 16 channels
// = 48 x 8 = 384 B -> 3072 + 1264 + 10 + 384 = 4730.
// `conv-bn-act` folds each BN into a conv bias of 4 B per channel: 48 x 4 = 192 B -> 4538.
constexpr double kNoneCompulsory = 4730, kFoldedCompulsory = 4538;

TEST(CompulsoryBytes, EveryRunReportsItsCompulsoryBytesAndTheRatio) {
  const std::string dir = npu::test::fresh_dir("compulsory");
  auto r = run_npu({"experiment", "--model", "tests/data/tiny_convnet.onnx", "--hw", "configs/edge-npu-ddr4.yaml",
                    "--strategies", "none,conv-bn-act", "--out", dir + "/exp"});
  ASSERT_EQ(r.status, 0) << r.output;
  const auto summary = read_json(dir + "/exp/summary.json");
  ASSERT_EQ(summary.size(), 2u);
  for (const auto& row : summary) {
    const double expected = row.at("strategy") == "none" ? kNoneCompulsory : kFoldedCompulsory;
    EXPECT_DOUBLE_EQ(row.at("compulsory_mb").get<double>(), expected / 1e6) << row.dump();
    const double total = row.at("ddr_total_mb").get<double>();
    EXPECT_NEAR(row.at("ddr_over_compulsory").get<double>(), total / (expected / 1e6), 1e-9);
    // Unfused tiny_convnet writes and re-reads every intermediate: well above the bound.
    EXPECT_GT(total, 2 * expected / 1e6);
  }
  // Each run folder has the bytes; run.json has the ratio too.
  const auto run = read_json(dir + "/exp/runs/tiny_convnet__edge-npu-ddr4__none/run.json");
  EXPECT_EQ(run.at("compulsory_bytes").get<std::uint64_t>(), 4730u);
  const double ddr = double(run.at("ddr_read_bytes").get<std::uint64_t>() + run.at("ddr_write_bytes").get<std::uint64_t>());
  EXPECT_NEAR(run.at("ddr_over_compulsory").get<double>(), ddr / 4730, 1e-6);
  // The CSV has the two columns after ddr_total_mb; the Markdown table the ratio.
  const std::string csv = read_file(dir + "/exp/summary.csv");
  EXPECT_EQ(csv.rfind("model,hw,strategy,status,ddr_read_mb,ddr_write_mb,ddr_total_mb,compulsory_mb,ddr_over_compulsory,",
                      0),
            0u)
      << csv;
  EXPECT_NE(csv.find(",0.004730,"), std::string::npos) << csv;
  EXPECT_NE(read_file(dir + "/exp/summary.md").find("| x compulsory |"), std::string::npos);

  // npu report carries the figures over from the run folders.
  r = run_npu({"report", dir + "/exp", "--out", dir + "/merged"});
  ASSERT_EQ(r.status, 0) << r.output;
  const auto merged = read_json(dir + "/merged/summary.json");
  ASSERT_EQ(merged.size(), 2u);
  for (const auto& row : merged) {
    const double expected = row.at("strategy") == "none" ? kNoneCompulsory : kFoldedCompulsory;
    EXPECT_DOUBLE_EQ(row.at("compulsory_mb").get<double>(), expected / 1e6) << row.dump();
  }
}

}  // namespace

namespace {

// Cross-layer pipelining (compiler/pipeline.hpp) moves the same bytes in less time:
// tiny_convnet `none`, fenced (--no-pipeline) and pipelined, simulated.
TEST(CrossLayerPipelining, SameDdrBytesInFewerCycles) {
  const std::string dir = npu::test::fresh_dir("pipeline");
  const std::vector<std::string> base{"simulate", "--model", "tests/data/tiny_convnet.onnx", "--hw",
                                      "configs/edge-npu-ddr4.yaml", "--strategy", "none", "-q"};
  auto with = base, without = base;
  with.insert(with.end(), {"--out", dir + "/on"});
  without.insert(without.end(), {"--out", dir + "/off", "--no-pipeline"});
  ASSERT_EQ(run_npu(with).status, 0);
  ASSERT_EQ(run_npu(without).status, 0);
  const auto on = read_json(dir + "/on/run_summary.json"), off = read_json(dir + "/off/run_summary.json");
  EXPECT_EQ(on.at("ddr_read_bytes"), off.at("ddr_read_bytes"));
  EXPECT_EQ(on.at("ddr_write_bytes"), off.at("ddr_write_bytes"));
  EXPECT_LT(on.at("cycles").get<std::uint64_t>(), off.at("cycles").get<std::uint64_t>());
}

// `npu compile` prints the same network figure (4730 B under `none`, by hand above), and not
// the report's per-layer sum, which counts every intermediate as one layer's output and the
// next one's input (a new user read the two as one quantity under one name; issue 27 item 4:
// it stays in the report's TOTAL row).
TEST(CompulsoryBytes, CompileNamesTheNetworkFigureAndLeavesThePerLayerSumToTheReport) {
  const std::string dir = npu::test::fresh_dir("compulsory-compile");
  const auto r = run_npu({"compile", "tests/data/tiny_convnet.onnx", "--hw", "configs/edge-npu-ddr4.yaml", "--strategy",
                          "none", "-o", dir + "/t.npuasm"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("network compulsory 4730 B (inputs, weights, outputs once)"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("per-layer compulsory sum"), std::string::npos) << r.output;
}

// Every DDR figure `npu compile` and its --explain print has one name, defined in
// docs/compiler.md's table "The DDR figures npu compile prints" (issue 27 item 4: four
// figures under three names were printed for one program).
TEST(CompulsoryBytes, EveryDdrFigureCompilePrintsIsDefinedInTheDocs) {
  const std::string dir = npu::test::fresh_dir("compulsory-names");
  const auto r = run_npu({"compile", "resnet18", "--hw", "configs/edge-npu-ddr4.yaml", "--strategy", "residual",
                          "--explain", "-o", dir + "/t.npuasm"});
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string docs = read_file(std::string(NPU_SOURCE_DIR) + "/docs/compiler.md");
  const std::size_t section = docs.find("### The DDR figures `npu compile` prints");
  ASSERT_NE(section, std::string::npos);
  const std::string table = docs.substr(section);
  for (const char* name : {"planned DDR", "burst DDR", "network compulsory"}) {
    EXPECT_NE(r.output.find(std::string(name) + " "), std::string::npos) << name << " not printed:\n" << r.output;
    EXPECT_NE(table.find(std::string("| **") + name + "**"), std::string::npos) << name << " not defined";
  }
  // No DDR figure without one of those names: "DDR <digits> B" appears only after "planned "
  // or "burst ".
  for (std::size_t at = r.output.find("DDR "); at != std::string::npos; at = r.output.find("DDR ", at + 1)) {
    const std::size_t digits = at + 4;
    if (digits >= r.output.size() || !std::isdigit(static_cast<unsigned char>(r.output[digits]))) continue;
    const std::string before = r.output.substr(at >= 8 ? at - 8 : 0, at >= 8 ? 8 : at);
    EXPECT_TRUE(before.find("planned ") != std::string::npos || before.find("burst ") != std::string::npos)
        << "an unnamed DDR figure: " << r.output.substr(at >= 60 ? at - 60 : 0, 100);
  }
}

}  // namespace
