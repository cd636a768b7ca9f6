// Node names that differ only in characters the program cannot spell ("conv 1" and "conv_1", two
// CJK names of one length) or that an earlier rename produced ("conv", "conv_2", "conv": the
// second "conv" became "conv_2") gave two layers one name. Layers, their int8 scales and the
// report rows are keyed by name: int8 verify failed with up to 253 LSB, and the per-layer tables
// filed two Convs' MACs under one row (new-user findings). The importer now makes each node's
// program spelling unique; the lowering refuses a clash a later pass might make.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "npu/compiler/backend/lowering/lowering.hpp"
#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/frontend/model_loader.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "test_compile_graphs.hpp"
#include "test_onnx_util.hpp"
#include "tool_runner.hpp"

namespace npu::compiler {
namespace {

using npu::test::OnnxModel;

/// x[1,3,32,32] -> three 3x3 Convs (16 filters, pad 1) named `names`, in order -> y.
OnnxModel three_convs(const std::vector<std::string>& names) {
  OnnxModel m(13);
  m.input("x", {1, 3, 32, 32});
  std::string in = "x";
  for (int k = 0; k < 3; ++k) {
    const std::string w = "w" + std::to_string(k), out = k == 2 ? "y" : "t" + std::to_string(k);
    std::vector<float> v(std::size_t(16 * (k == 0 ? 3 : 16) * 9));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = 0.2f * float(std::sin(0.7 * double(i) + k));  // not all alike
    m.init_float(w, {16, k == 0 ? 3 : 16, 3, 3}, v);
    OnnxModel::attr_ints(m.node("Conv", names[std::size_t(k)], {in, w}, {out}), "pads", {1, 1, 1, 1});
    in = out;
  }
  m.output("y");
  return m;
}

std::vector<std::string> layer_names(const std::vector<std::string>& node_names) {
  const Graph g = load_model_bytes(three_convs(node_names).bytes(), "names.onnx");
  const CompileResult r = compile(g, testing::edge_like_hw(), builtin_strategy("none"));
  std::vector<std::string> names;
  for (const auto& L : r.lowered.layers) names.push_back(L.name);
  return names;
}

TEST(NodeNameCollisions, EveryConvKeepsALayerOfItsOwn) {
  for (const std::vector<std::string>& nodes :
       {std::vector<std::string>{"conv", "conv_2", "conv"},      // the rename of the 2nd "conv" was taken
        std::vector<std::string>{"conv 1", "conv_1", "conv;1"},  // one program spelling: conv_1
        std::vector<std::string>{"\xe5\x8d\xb7\xe7\xa7\xaf" "2", "\xe9\x97\xa8\xe6\x8e\xa7" "2", "c"}}) {  // CJK
    const std::vector<std::string> names = layer_names(nodes);
    ASSERT_EQ(names.size(), 3u) << nodes[0];  // `none`: one layer per Conv
    EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), 3u)
        << names[0] << " " << names[1] << " " << names[2];
    for (const std::string& n : names) EXPECT_EQ(isa_name(n), n);  // spellable in the program
  }
}

TEST(NodeNameCollisions, AnUnclashedNameIsKeptAsExported) {
  const std::vector<std::string> names = layer_names({"stem", "conv 1", "head"});
  EXPECT_EQ(names, (std::vector<std::string>{"stem", "conv_1", "head"}));
}

// Through the tool: every Conv has its row (MACs = 32 x 32 outputs x 16 filters x Cin x 3 x 3:
// 442,368 for Cin 3, 2,359,296 for Cin 16), and int8 execution matches the integer reference
// (the shared name gave two layers one set of scales: up to 253 LSB off, SQNR -1.4 dB).
TEST(NodeNameCollisions, TheToolKeepsEveryRowAndInt8VerifyPasses) {
  const std::string dir = npu::test::fresh_dir("name-collisions");
  const std::string model = dir + "/names.onnx";
  std::ofstream(model, std::ios::binary) << three_convs({"conv 1", "conv_1", "conv"}).bytes();
  const std::string npu = std::string("'") + NPU_TOOL_PATH + "'", hw = std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml";
  auto r = npu::test::run_shell(npu + " simulate --model '" + model + "' --hw '" + hw + "' --strategy none --out '" + dir + "/run' -q");
  ASSERT_EQ(r.status, 0) << r.output;
  // layers.csv: a header, then one row per layer; the names here hold no comma or quote.
  std::istringstream csv(npu::test::read_file(dir + "/run/layers.csv"));
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(csv, line);) {
    std::istringstream cells(line);
    rows.emplace_back();
    for (std::string cell; std::getline(cells, cell, ',');) rows.back().push_back(cell);
  }
  ASSERT_FALSE(rows.empty());
  const auto macs_col = std::size_t(std::find(rows[0].begin(), rows[0].end(), "macs") - rows[0].begin());
  std::vector<std::string> macs;
  for (std::size_t k = 1; k < rows.size(); ++k) macs.push_back(macs_col < rows[k].size() ? rows[k][macs_col] : "?");
  EXPECT_EQ(macs, (std::vector<std::string>{"442368", "2359296", "2359296"}));
  r = npu::test::run_shell(npu + " verify '" + model + "' --hw '" + hw + "' --strategies none --out '" + dir + "/verify'");
  EXPECT_EQ(r.status, 0) << r.output;
}

}  // namespace
}  // namespace npu::compiler
