// Conv over NCDHW (issue 28 kind 5, video models) on the NPU with data: per output depth slice
// one CONV per (kernel depth, input-channel group) accumulated in SRAM (codegen/conv3d.cpp),
// BatchNormalization and Relu as on NCHW, MaxPool3d / AvgPool3d as a spatial then a depth pool.
// fp32 values against numbers worked out by hand and against the reference interpreter (itself
// checked against ONNX Runtime on the same kind of block: OrtConv3d.* in test_reference_ort.cpp)
// under every strategy, with an SRAM small enough for several tiles and a large one.
#include <gtest/gtest.h>

#include "functional_test_util.hpp"
#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/reference/reference_interpreter.hpp"
#include "npu/compiler/transforms/strategy.hpp"

namespace {

using namespace npu;
using compiler::Node;
using compiler::Tensor;
using compiler::testing::GraphBuilder;
using V = std::vector<std::int64_t>;

std::uint64_t conv_macs(const compiler::CompileResult& c) {
  std::uint64_t m = 0;
  for (const auto& L : c.lowered.layers) m += L.macs;
  return m;
}

TEST(Conv3dData, DepthTapsSumOverPaddedSlicesByHand) {
  // x [1,2,3,1,2]: channel 0 depth slices [1,2], [3,4], [5,6]; channel 1 = 10 x channel 0.
  // W [1,2,3,1,1]: channel 0 taps (1,1,1), channel 1 (0,1,0); depth pads 1, bias 1.
  // y[d] = 1 + sum_kd x0[d-1+kd] + 10 x0[d]:
  //   d0: 1 + (1+3, 2+4) + (10, 20) = (15, 27); d1: 1 + (9, 12) + (30, 40) = (40, 53);
  //   d2: 1 + (8, 10) + (50, 60) = (59, 71).
  // MACs: (od, kd) pairs that read a slice: 2 + 3 + 2 = 7, each a 2-D conv of
  // c_out 1 x 1 x 2 outputs x c_in 2 x 1 x 1 taps = 4 MACs -> 28.
  GraphBuilder b("conv3d");
  b.input("x", {1, 2, 3, 1, 2});
  Tensor& w = b.add_tensor("w", {1, 2, 3, 1, 1}, true);
  w.float_data = {1, 1, 1, 0, 1, 0};
  Tensor& bias = b.add_tensor("b", {1}, true);
  bias.float_data = {1};
  b.add_tensor("y", {1, 1, 3, 1, 2});
  b.node("c", "Conv", {"x", "w", "b"}, {"y"}).attrs["pads"] = V{1, 0, 0, 1, 0, 0};
  b.output("y");
  const HwConfig hw = test::fp32_hw();
  const auto c = compiler::compile(b.g, hw, compiler::builtin_strategy("none"));
  EXPECT_TRUE(c.lowered.host_nodes.empty());
  EXPECT_EQ(conv_macs(c), 28u);
  const auto r = test::run_forked(c, hw, {{"x", {1, 2, 3, 4, 5, 6, 10, 20, 30, 40, 50, 60}}}, true);
  ASSERT_TRUE(r.ok) << r.error;
  const std::vector<float> want = {15, 27, 40, 53, 59, 71};
  EXPECT_EQ(r.outputs.at("y"), want);
}

// x [1,2,5,6,6] -> Conv3d 4 x 2 x 3x3x3 + bias, strides (2,1,1), pads 1 -> [1,4,3,6,6]
// -> BatchNormalization -> Relu -> MaxPool3d k (2,2,2) s (1,2,2) -> [1,4,2,3,3]
// -> AveragePool3d k 3x3x3 s 1 pads 1 (count_include_pad 0) -> [1,4,2,3,3].
GraphBuilder video_block() {
  GraphBuilder b("video_block");
  b.input("x", {1, 2, 5, 6, 6});
  b.constant("w", {4, 2, 3, 3, 3}, -0.5f, 0.5f);
  b.constant("bias", {4}, -0.2f, 0.2f);
  b.add_tensor("y", {1, 4, 3, 6, 6});
  Node& c = b.node("conv", "Conv", {"x", "w", "bias"}, {"y"});
  c.attrs["strides"] = V{2, 1, 1};
  c.attrs["pads"] = V{1, 1, 1, 1, 1, 1};
  b.constant("g", {4}, 0.5f, 1.5f);
  b.constant("be", {4}, -0.1f, 0.1f);
  b.constant("m", {4}, -0.1f, 0.1f);
  b.constant("v", {4}, 0.5f, 1.5f);
  b.add_tensor("bn", {1, 4, 3, 6, 6});
  b.node("bn", "BatchNormalization", {"y", "g", "be", "m", "v"}, {"bn"});
  b.add_tensor("r", {1, 4, 3, 6, 6});
  b.node("relu", "Relu", {"bn"}, {"r"});
  b.add_tensor("mp", {1, 4, 2, 3, 3});
  Node& mp = b.node("maxpool", "MaxPool", {"r"}, {"mp"});
  mp.attrs["kernel_shape"] = V{2, 2, 2};
  mp.attrs["strides"] = V{1, 2, 2};
  b.add_tensor("ap", {1, 4, 2, 3, 3});
  Node& ap = b.node("avgpool", "AveragePool", {"mp"}, {"ap"});
  ap.attrs["kernel_shape"] = V{3, 3, 3};
  ap.attrs["pads"] = V{1, 1, 1, 1, 1, 1};
  b.output("ap");
  return b;
}

TEST(Conv3dData, VideoBlockMatchesTheReferenceUnderEveryStrategy) {
  GraphBuilder b = video_block();
  const std::vector<float> xv = test::random_values(2 * 5 * 6 * 6, 7);
  compiler::RefTensorMap in;
  in["x"].shape = {1, 2, 5, 6, 6};
  in["x"].f = xv;
  const std::vector<double> ref = test::to_double(compiler::run_reference(b.g, in).at("ap").f);
  for (std::uint64_t sram : {std::uint64_t(8192), std::uint64_t(1) << 20}) {
    const HwConfig hw = test::fp32_hw(sram);
    for (const std::string& s : compiler::builtin_strategy_names()) {
      const auto c = compiler::compile(b.g, hw, compiler::builtin_strategy(s));
      EXPECT_TRUE(c.lowered.host_nodes.empty()) << s << ": " << c.lowered.host_nodes.front().reason;
      // Conv MACs: output depth slices read 2 (od 0: slices -1..1), 3 (1..3) and 2 (3..5) slices:
      // 7 2-D convolutions of 4 x 6 x 6 outputs x 2 x 3 x 3 taps = 2592 MACs -> 18144.
      EXPECT_EQ(conv_macs(c), 18144u) << s;
      const auto r = test::run_forked(c, hw, {{"x", xv}}, true);
      ASSERT_TRUE(r.ok) << s << " " << sram << ": " << r.error;
      EXPECT_LT(test::rel_err(r.outputs.at("ap"), ref), 1e-4) << s << " " << sram;
    }
  }
}

// DDR bytes of the LOADs of `tensor` in the program.
std::uint64_t loaded_bytes(const compiler::CompileResult& c, const std::string& tensor) {
  std::uint64_t n = 0;
  for (const auto& ins : c.program.instructions)
    if (ins.op == isa::Opcode::Load && ins.tensor == tensor) n += std::get<isa::DmaDesc>(ins.params).bytes();
  return n;
}

std::string conv_loop_order(const compiler::CompileResult& c) {
  for (const auto& l : c.report.layers)
    if (l.layer == "conv") return l.loop_order;
  return "";
}

TEST(Conv3dData, VideoBlockMatchesTheReferenceUnderEveryForcedLoopOrder) {
  // Each loop order of a Conv over NCDHW (tiling/conv3d_plan.hpp) forced, at 8 KiB (several
  // channel and row tiles) and 1 MiB, under every strategy: the values equal the reference.
  GraphBuilder b = video_block();
  const std::vector<float> xv = test::random_values(2 * 5 * 6 * 6, 11);
  compiler::RefTensorMap in;
  in["x"].shape = {1, 2, 5, 6, 6};
  in["x"].f = xv;
  const std::vector<double> ref = test::to_double(compiler::run_reference(b.g, in).at("ap").f);
  const std::pair<compiler::DepthOrderPolicy, std::string> orders[] = {
      {compiler::DepthOrderPolicy::WeightsResident, "weights-resident-depth"},
      {compiler::DepthOrderPolicy::InputResident, "input-resident-depth"},
      {compiler::DepthOrderPolicy::PerTap, "per-tap"}};
  for (const auto& [policy, name] : orders)
    for (std::uint64_t sram : {std::uint64_t(8192), std::uint64_t(1) << 20}) {
      const HwConfig hw = test::fp32_hw(sram);
      compiler::CompileOptions opt;
      opt.tiling.conv3d_order = policy;
      opt.smaller_sram_plans = false;  // the forced order at the configured SRAM itself
      for (const std::string& s : compiler::builtin_strategy_names()) {
        const auto c = compiler::compile(b.g, hw, compiler::builtin_strategy(s), opt);
        EXPECT_EQ(conv_loop_order(c), name) << s << " " << sram;
        const auto r = test::run_forked(c, hw, {{"x", xv}}, true);
        ASSERT_TRUE(r.ok) << name << " " << s << " " << sram << ": " << r.error;
        EXPECT_LT(test::rel_err(r.outputs.at("ap"), ref), 1e-4) << name << " " << s << " " << sram;
      }
    }
}

// x [1,2,4,4,4] -> Conv3d 2 x 2 x 3x3x3, pads 1 -> [1,2,4,4,4].
GraphBuilder small_conv3d() {
  GraphBuilder b("small_conv3d");
  b.input("x", {1, 2, 4, 4, 4});
  b.constant("w", {2, 2, 3, 3, 3}, -0.5f, 0.5f);
  b.add_tensor("y", {1, 2, 4, 4, 4});
  b.node("conv", "Conv", {"x", "w"}, {"y"}).attrs["pads"] = V{1, 1, 1, 1, 1, 1};
  b.output("y");
  return b;
}

TEST(Conv3dData, WeightsLoadedOnceWhenResidentPerTapWhenForced) {
  // Cin 2, Cout 2, D H W 4, kD kH kW 3, pads 1, fp32, SRAM 1 MiB. Compulsory weights
  // 2 x 2 x 27 x 4 B = 432 B. T = (od, kd) pairs reading a slice = 2 + 3 + 3 + 2 = 10; per-tap
  // loads one kd slice (2 x 2 x 9 x 4 B = 144 B) per pair and row tile: n_row x 1,440 B.
  GraphBuilder b = small_conv3d();
  const std::vector<float> xv = test::random_values(2 * 4 * 4 * 4, 5);
  compiler::RefTensorMap in;
  in["x"].shape = {1, 2, 4, 4, 4};
  in["x"].f = xv;
  const std::vector<double> ref = test::to_double(compiler::run_reference(b.g, in).at("y").f);
  const HwConfig hw = test::fp32_hw();
  const auto c = compiler::compile(b.g, hw, compiler::builtin_strategy("none"));
  EXPECT_EQ(conv_loop_order(c), "weights-resident-depth");
  EXPECT_EQ(loaded_bytes(c, "w"), 432u);
  compiler::CompileOptions opt;
  opt.tiling.conv3d_order = compiler::DepthOrderPolicy::PerTap;
  const auto t = compiler::compile(b.g, hw, compiler::builtin_strategy("none"), opt);
  EXPECT_EQ(conv_loop_order(t), "per-tap");
  const std::uint64_t w = loaded_bytes(t, "w");
  EXPECT_TRUE(w >= 1440 && w % 1440 == 0) << w;
  for (const auto* cr : {&c, &t}) {
    const auto r = test::run_forked(*cr, hw, {{"x", xv}}, true);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_LT(test::rel_err(r.outputs.at("y"), ref), 1e-4);
  }
}

}  // namespace
