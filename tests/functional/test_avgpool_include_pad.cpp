// AveragePool with count_include_pad=1 whose windows all lie inside the input (torchvision's
// DenseNet transitions: 2x2, stride 2, no pads): the flag changes nothing there, so the data
// path and the int8 rule run it (both refused it before, stopping densenet121's `npu verify` in
// fp32 and int8; docs/results.md "Torchvision set (issue 28)"). Where a window does reach the
// padding (Inception-v3's 3x3 stride-1 pools), POOL avg_pad divides by the whole window (in int8
// the padding's taps are the zero point); a window past the padding (ceil_mode) is still
// refused, naming the layer.
#include <gtest/gtest.h>

#include <fstream>

#include "functional_test_util.hpp"
#include "fp32_config.hpp"
#include "npu/compiler/backend/emit/ddr_image.hpp"
#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/ir/pool_window.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "shared_data.hpp"
#include "test_onnx_util.hpp"
#include "tool_runner.hpp"

namespace {

using namespace npu;
using compiler::testing::GraphBuilder;
using V = std::vector<std::int64_t>;

/// x [1,1,H,W] -> AveragePool (k, s, pads, ceil_mode, count_include_pad 1) -> y [1,1,Ho,Wo].
GraphBuilder pool_graph(std::int64_t H, std::int64_t W, std::int64_t k, std::int64_t s, V pads, int ceil,
                        std::int64_t Ho, std::int64_t Wo) {
  GraphBuilder b("avgpool");
  b.input("x", {1, 1, H, W});
  b.add_tensor("y", {1, 1, Ho, Wo});
  compiler::Node& n = b.node("pool", "AveragePool", {"x"}, {"y"});
  n.attrs["kernel_shape"] = V{k, k};
  n.attrs["strides"] = V{s, s};
  n.attrs["pads"] = pads;
  n.attrs["ceil_mode"] = std::int64_t{ceil};
  n.attrs["count_include_pad"] = std::int64_t{1};
  b.output("y");
  return b;
}

const compiler::Node& pool_of(const GraphBuilder& b) { return b.g.nodes.at(0); }

TEST(AvgPoolIncludePad, MattersOnlyWhereAWindowLeavesTheInput) {
  // 4x4, k2 s2, no pads: windows at 0 and 2 end at 3 < 4 -> no effect.
  EXPECT_FALSE(compiler::avg_pool_counts_padding(pool_graph(4, 4, 2, 2, {0, 0, 0, 0}, 0, 2, 2).g,
                                                 pool_of(pool_graph(4, 4, 2, 2, {0, 0, 0, 0}, 0, 2, 2))));
  // 4x4, k3 s1, pads 1: the corner window holds 4 inside taps of 9 -> divisor 9 instead of 4.
  const auto padded = pool_graph(4, 4, 3, 1, {1, 1, 1, 1}, 0, 4, 4);
  EXPECT_TRUE(compiler::avg_pool_counts_padding(padded.g, pool_of(padded)));
  // 5x5, k2 s2, ceil_mode: out = ceil((5 - 2) / 2) + 1 = 3; the last window starts at 4 and
  // ends at 5 > 4 (the last index): (3 - 1) x 2 + 2 = 6 > 5 -> it hangs past the input.
  const auto ceil = pool_graph(5, 5, 2, 2, {0, 0, 0, 0}, 1, 3, 3);
  EXPECT_TRUE(compiler::avg_pool_counts_padding(ceil.g, pool_of(ceil)));
  // The same with 4x4: out = ceil(2 / 2) + 1 = 2, (2 - 1) x 2 + 2 = 4 <= 4 -> no overhang.
  const auto ceil_fits = pool_graph(4, 4, 2, 2, {0, 0, 0, 0}, 1, 2, 2);
  EXPECT_FALSE(compiler::avg_pool_counts_padding(ceil_fits.g, pool_of(ceil_fits)));
}

TEST(AvgPoolIncludePad, NoPadsRunsWithDataByHand) {
  // x = 0..15 on 4x4; 2x2 windows, stride 2: (0+1+4+5)/4 = 2.5, (2+3+6+7)/4 = 4.5,
  // (8+9+12+13)/4 = 10.5, (10+11+14+15)/4 = 12.5.
  const GraphBuilder b = pool_graph(4, 4, 2, 2, {0, 0, 0, 0}, 0, 2, 2);
  const HwConfig hw = test::fp32_hw();
  const auto c = compiler::compile(b.g, hw, compiler::builtin_strategy("none"));
  EXPECT_TRUE(compiler::functional_problems(c).empty());
  std::vector<float> x(16);
  for (int i = 0; i < 16; ++i) x[std::size_t(i)] = float(i);
  const auto r = test::run_forked(c, hw, {{"x", x}}, true);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.outputs.at("y"), (std::vector<float>{2.5f, 4.5f, 10.5f, 12.5f}));
}

TEST(AvgPoolIncludePad, OverPaddingDividesByTheWholeWindowByHand) {
  // Inception-v3's pools (3x3, stride 1, pads 1, count_include_pad 1) in small: x = 0..15 on
  // 4x4, POOL avg_pad divides every window by 9, the padding counted as zeros:
  //   y[0,0]: rows -1..1, cols -1..1 hold 0, 1, 4, 5 inside -> 10 / 9
  //   y[0,1]: rows -1..1, cols 0..2 hold 0, 1, 2, 4, 5, 6 -> 18 / 9 = 2
  //   y[1,1]: rows 0..2, cols 0..2 hold 0+1+2+4+5+6+8+9+10 = 45 -> 5
  //   y[3,3]: rows 2..4, cols 2..4 hold 10, 11, 14, 15 -> 50 / 9
  // (count_include_pad=0 would give 10 / 4, 18 / 6, 5 and 50 / 4.)
  const GraphBuilder b = pool_graph(4, 4, 3, 1, {1, 1, 1, 1}, 0, 4, 4);
  const HwConfig hw = test::fp32_hw();
  for (const char* strategy : {"none", "depth-first"}) {
    const auto c = compiler::compile(b.g, hw, compiler::builtin_strategy(strategy));
    EXPECT_TRUE(compiler::functional_problems(c).empty()) << strategy;
    int avg_pad = 0;  // the layer runs as POOL avg_pad, not avg
    for (const auto& in : c.program.instructions)
      if (const auto* pp = std::get_if<npu::isa::PoolParams>(&in.params)) avg_pad += pp->op == npu::isa::PoolOp::AvgPad;
    EXPECT_GT(avg_pad, 0) << strategy;
    std::vector<float> x(16);
    for (int i = 0; i < 16; ++i) x[std::size_t(i)] = float(i);
    const auto r = test::run_forked(c, hw, {{"x", x}}, true);
    ASSERT_TRUE(r.ok) << r.error;
    const std::vector<float>& y = r.outputs.at("y");
    ASSERT_EQ(y.size(), 16u);
    EXPECT_FLOAT_EQ(y[0], 10.0f / 9.0f) << strategy;
    EXPECT_FLOAT_EQ(y[1], 2.0f) << strategy;
    EXPECT_FLOAT_EQ(y[5], 5.0f) << strategy;
    EXPECT_FLOAT_EQ(y[15], 50.0f / 9.0f) << strategy;
  }
}

TEST(AvgPoolIncludePad, AWindowPastThePaddingIsStillRefusedNamingTheLayer) {
  // 6x6, k3 s2, pads 1, ceil_mode: out = ceil((6 + 2 - 3) / 2) + 1 = 4; the last window starts
  // at 3 x 2 - 1 = 5 and covers 5, 6, 7, where the padded input ends at 6: ONNX divides it by
  // the 2 x ... taps inside the padded input, which neither POOL op computes.
  const GraphBuilder b = pool_graph(6, 6, 3, 2, {1, 1, 1, 1}, 1, 4, 4);
  const auto c = compiler::compile(b.g, test::fp32_hw(), compiler::builtin_strategy("none"));
  const auto p = compiler::functional_problems(c);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_NE(p[0].find("'pool' (AveragePool) has count_include_pad=1 and a window past the padding"),
            std::string::npos)
      << p[0];
}

TEST(AvgPoolIncludePad, Int8AvgPadIsBitExactOnTheSharedPadAvgPoolCase) {
  // The shared Pad(1) + AveragePool 3x3 case (Inception-v3): in int8 the padding's taps are the
  // zero point (POOL avg_pad zp=IN,IN; it was refused before the rule existed), bit-exact with the
  // integer reference.
  const std::string model = test::shared_path("models/cases/op_pad_avgpool.onnx");
  NPU_REQUIRE_SHARED_OR_SKIP(model);
  const auto r = test::run_npu({"verify", model, "--hw", "configs/edge-npu-ddr4.yaml", "--strategies",
                                "none,depth-first", "--out", test::fresh_dir("avgpool-pad-int8") + "/v"});
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output.find("not run"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("bit-exact |"), std::string::npos) << r.output;
}

TEST(AvgPoolIncludePad, VerifyInt8IsBitExactAndFp32Passes) {
  // Conv 1x1 (2 -> 4 channels) -> AveragePool 2x2 s2 count_include_pad 1 on 8x8: the DenseNet
  // transition's shape in small. int8: PTQ then the program against the integer reference.
  test::OnnxModel m(13);
  m.input("x", {1, 2, 8, 8});
  m.init_float("w", {4, 2, 1, 1}, {0.5f, -0.25f, 0.75f, 0.1f, -0.6f, 0.3f, 0.2f, 0.9f});
  m.node("Conv", "conv", {"x", "w"}, {"c"});
  auto& ap = m.node("AveragePool", "pool", {"c"}, {"y"});
  test::OnnxModel::attr_ints(ap, "kernel_shape", {2, 2});
  test::OnnxModel::attr_ints(ap, "strides", {2, 2});
  test::OnnxModel::attr_i(ap, "count_include_pad", 1);
  m.output("y");
  const std::string dir = test::fresh_dir("avgpool-include-pad");
  const std::string model = dir + "/pool.onnx";
  std::ofstream(model, std::ios::binary) << m.bytes();
  auto r = test::run_npu({"verify", model, "--hw", "configs/edge-npu-ddr4.yaml", "--strategies", "none,depth-first",
                          "--out", dir + "/v8"});
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("| none | y | ok |"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("not run"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("bit-exact |"), std::string::npos) << r.output;
  r = test::run_npu({"verify", model, "--hw", test::fp32_config(dir), "--strategies", "none,depth-first", "--out",
                     dir + "/v32"});
  EXPECT_EQ(r.status, 0) << r.output;
}

// GoogLeNet's and SqueezeNet's MaxPools (3x3, stride 2, ceil_mode): the last window hangs past
// the input and takes the max of the taps inside. The integer reference refused ceil_mode, so
// their int8 verify was not run; fp32 already ran.
TEST(AvgPoolIncludePad, CeilModePoolsAreBitExactInInt8) {
  // x [1,2,8,8] -> Conv 1x1 (2 -> 4) -> MaxPool 3x3 s2 ceil_mode: out = ceil((8 - 3) / 2) + 1 = 4
  // (3 without ceil_mode); the 4th window starts at 6 and covers 6, 7 and 8 (outside).
  test::OnnxModel m(13);
  m.input("x", {1, 2, 8, 8});
  m.init_float("w", {4, 2, 1, 1}, {0.5f, -0.25f, 0.75f, 0.1f, -0.6f, 0.3f, 0.2f, 0.9f});
  m.node("Conv", "conv", {"x", "w"}, {"c"});
  auto& mp = m.node("MaxPool", "pool", {"c"}, {"y"});
  test::OnnxModel::attr_ints(mp, "kernel_shape", {3, 3});
  test::OnnxModel::attr_ints(mp, "strides", {2, 2});
  test::OnnxModel::attr_i(mp, "ceil_mode", 1);
  m.output("y");
  const std::string dir = test::fresh_dir("maxpool-ceil-int8");
  const std::string model = dir + "/pool.onnx";
  std::ofstream(model, std::ios::binary) << m.bytes();
  const auto r = test::run_npu({"verify", model, "--hw", "configs/edge-npu-ddr4.yaml", "--strategies",
                                "none,depth-first", "--out", dir + "/v8"});
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output.find("not run"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("bit-exact |"), std::string::npos) << r.output;
}

}  // namespace
