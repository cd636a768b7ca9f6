// The experiment's terminal table with a long hw name (issue 27 item 5): a sweep-derived
// config name such as `edge-npu-ddr4__capacity-256KiB` (30 characters) is wider than the 20
// the table once gave its hw column, and pushed the figures of its rows out of line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tool_runner.hpp"

using npu::test::read_file;
using npu::test::run_npu;

namespace {

// The lines of the table, from its heading (starting "model ") to the first empty line.
std::vector<std::string> table_lines(const std::string& output) {
  std::vector<std::string> lines;
  std::istringstream in(output.substr(output.find("model ")));
  for (std::string line; std::getline(in, line) && !line.empty();) lines.push_back(line);
  return lines;
}

TEST(SummaryTable, ALongHwNameKeepsEveryColumnInLine) {
  const std::string dir = npu::test::fresh_dir("summary-table");
  const std::string hw = dir + "/edge-npu-ddr4__capacity-256KiB.yaml";
  std::filesystem::copy_file(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml", hw);
  const auto r = run_npu({"experiment", "--model", "tests/data/tiny_convnet.onnx", "--hw", hw, "--strategies",
                          "none,conv-bn-act", "--out", dir + "/exp"});
  ASSERT_EQ(r.status, 0) << r.output;
  const auto lines = table_lines(r.output);
  ASSERT_EQ(lines.size(), 3u) << r.output;
  // The strategy column starts where its heading does, and the right-aligned "lat ms" column
  // ends where its heading does, on every row.
  const std::size_t strategy_at = lines[0].find("strategy");
  const std::size_t latency_end = lines[0].find("lat ms") + 6;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    EXPECT_EQ(lines[i].find(i == 1 ? "none" : "conv-bn-act"), strategy_at) << r.output;
    EXPECT_EQ(lines[i][latency_end - 1] != ' ' && lines[i][latency_end] == ' ', true) << r.output;
    EXPECT_EQ(lines[i].find("edge-npu-ddr4__capacity-256KiB  "), lines[0].find("hw ")) << r.output;
  }
  // summary.md keeps the full name (Markdown needs no widths).
  EXPECT_NE(read_file(dir + "/exp/summary.md").find("| edge-npu-ddr4__capacity-256KiB |"), std::string::npos);
}

}  // namespace

namespace {

// Issue 27 item 1: `conv-act` equals `none` on a Conv -> BN -> Relu network (tiny_convnet), and
// the summary says why, from the compiler's decisions: fuse-activation declined every
// candidate because a BatchNormalization sits between the conv and the activation.
TEST(SummaryTable, SaysWhyAStrategyChangedNothing) {
  const std::string dir = npu::test::fresh_dir("summary-why");
  const auto r = run_npu({"experiment", "--model", "tests/data/tiny_convnet.onnx", "--hw", "configs/edge-npu-ddr4.yaml",
                          "--strategies", "none,conv-act,conv-bn-act", "--out", dir + "/exp"});
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string why = "tiny_convnet edge-npu-ddr4 conv-act: changed nothing against none: fuse-activation fused 0, declined ";
  const std::size_t at = r.output.find(why);
  ASSERT_NE(at, std::string::npos) << r.output;
  const std::string line = r.output.substr(at, r.output.find('\n', at) - at);
  EXPECT_NE(line.find("BatchNormalization"), std::string::npos) << line;
  EXPECT_NE(line.find("between conv and Relu"), std::string::npos) << line;
  // conv-bn-act changed things: its line counts the rewrites and gives no reasons.
  EXPECT_NE(r.output.find("tiny_convnet edge-npu-ddr4 conv-bn-act: fold-batchnorm folded "), std::string::npos) << r.output;
  // Issue 27 item 2: the summary gives the sequential-stream rate beside the peak; edge preset by
  // hand: 64 B / (tCCD_L 8 x 0.625 ns) = 12.8 GB/s of 3200 MT/s x 8 B = 25.6 GB/s.
  EXPECT_NE(r.output.find("bandwidth: edge-npu-ddr4: BW % is of the 25.6 GB/s peak; one sequential stream (a LOAD in "
                          "address order) reaches at most 12.8 GB/s"),
            std::string::npos)
      << r.output;
  const std::string layers = read_file(dir + "/exp/layers/tiny_convnet__edge-npu-ddr4__none.csv");
  EXPECT_NE(layers.find(",ddr_gbps,peak_ddr_gbps,stream_ddr_gbps,"), std::string::npos) << layers;
  EXPECT_NE(layers.find(",25.600000,12.800000,"), std::string::npos) << layers;
  // The same lines in summary.md; summary.json per run.
  EXPECT_NE(read_file(dir + "/exp/summary.md").find(why), std::string::npos);
  for (const auto& row : npu::test::read_json(dir + "/exp/summary.json")) {
    const std::string s = row.at("strategy");
    EXPECT_DOUBLE_EQ(row.at("stream_ddr_gbps").get<double>(), 12.8) << row.dump();
    EXPECT_DOUBLE_EQ(row.at("peak_ddr_gbps").get<double>(), 25.6) << row.dump();
    if (s == "none") {
      EXPECT_TRUE(row.at("changed_nothing").is_null()) << row.dump();
      EXPECT_TRUE(row.at("pass_effects").empty()) << row.dump();
      continue;
    }
    EXPECT_EQ(row.at("changed_nothing").get<bool>(), s == "conv-act") << row.dump();
    EXPECT_EQ(row.at("strategy_effect").get<std::string>().rfind(s == "conv-act" ? "changed nothing" : "fold-batchnorm", 0), 0u)
        << row.dump();
  }
}

// New-user finding: a strategy file listing no passes ran as `none` but got no line at all,
// where docs/experiment.md promises one for every run other than `none`.
TEST(SummaryTable, AStrategyFileWithNoPassesSaysSo) {
  const std::string dir = npu::test::fresh_dir("summary-no-passes");
  { std::ofstream(dir + "/empty.yaml") << "name: empty\npasses: []\n"; }
  const auto r = run_npu({"experiment", "--model", "tests/data/tiny_convnet.onnx", "--hw", "configs/edge-npu-ddr4.yaml",
                          "--strategies", "none," + dir + "/empty.yaml", "--out", dir + "/exp"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("tiny_convnet edge-npu-ddr4 empty: changed nothing against none: its strategy lists no "
                          "passes\n"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("edge-npu-ddr4 none:"), std::string::npos) << r.output;  // none gets no line
}

}  // namespace
