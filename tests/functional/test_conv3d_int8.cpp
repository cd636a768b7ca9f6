// Conv over NCDHW in int8 (issue 28 kind 5, r3d_18's `npu verify` in int8): one int32 sum over
// every kernel tap, depth too, then one requantisation, in the integer reference
// (quantised_interpreter.cpp) and on the data path (codegen/conv3d.cpp: the depth taps' CONVs
// keep int32 partial sums in SRAM, acc_in / acc_out, and only the last requantises). A value
// worked out by hand on a graph quantised by hand, then post-training-quantised video blocks
// bit-exact against the integer reference under every strategy, loop order and SRAM size.
#include <gtest/gtest.h>

#include "functional_test_util.hpp"
#include "int8_test_util.hpp"
#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/reference/reference_quantised.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace {

using namespace npu;
using compiler::ElemType;
using compiler::Node;
using compiler::QuantParams;
using compiler::testing::GraphBuilder;
using V = std::vector<std::int64_t>;

HwConfig int8_hw(std::uint64_t sram = 0) {
  HwConfig hw = load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  if (sram) hw.sram.capacity_bytes = sram;
  return hw;
}

// x [1,1,3,1,1] on (scale 0.5, zp 1); W [1,1,3,1,1] = (1, 2, 3) on scale 0.5 (int8 2, 4, 6);
// depth pads 1; y [1,1,3,1,1] on (scale 2, zp -3).
GraphBuilder hand_quantised() {
  GraphBuilder b("conv3d_int8_hand");
  b.input("x", {1, 1, 3, 1, 1});
  b.g.tensor("x").quant = QuantParams{{0.5f}, {1}, 1, ElemType::Int8};
  compiler::Tensor& w = b.add_tensor("w", {1, 1, 3, 1, 1}, true);
  w.float_data = {1, 2, 3};
  w.quant = QuantParams{{0.5f}, {0}, 0, ElemType::Int8};
  b.add_tensor("y", {1, 1, 3, 1, 1}).quant = QuantParams{{2.0f}, {-3}, 1, ElemType::Int8};
  b.node("conv", "Conv", {"x", "w"}, {"y"}).attrs["pads"] = V{1, 0, 0, 1, 0, 0};
  b.output("y");
  return b;
}

TEST(Conv3dInt8, DepthTapsSumInInt32ThenRequantiseOnceByHand) {
  // x real (1, 2, 3) -> q = x / 0.5 + 1 = (3, 5, 7), less the zero point (2, 4, 6).
  // acc[od] = sum over kd of (x_q - 1)[od - 1 + kd] w_q[kd], the padded slices skipped:
  //   od 0: 2 x 4 + 4 x 6 = 32; od 1: 2 x 2 + 4 x 4 + 6 x 6 = 56; od 2: 4 x 2 + 6 x 4 = 32.
  // M = s_x s_w / s_y = 0.5 x 0.5 / 2 = 0.125: y = -3 + acc / 8 = (1, 4, 1) (exact: the real
  // outputs 8, 14, 8 = 2 x (y + 3)), and one requantisation of the whole sum.
  GraphBuilder b = hand_quantised();
  const compiler::QuantisedTensorMap ref = compiler::run_quantised_reference(b.g, {{"x", {1, 2, 3}}});
  const std::vector<std::int8_t> want = {1, 4, 1};
  EXPECT_EQ(ref.at("y").q, want);
  const HwConfig hw = int8_hw();
  for (const std::string& s : compiler::builtin_strategy_names()) {
    const auto c = compiler::compile(b.g, hw, compiler::builtin_strategy(s));
    EXPECT_TRUE(c.lowered.host_nodes.empty()) << s;
    compiler::RefTensorMap in;
    in["x"].shape = {1, 1, 3, 1, 1};
    in["x"].f = {1, 2, 3};
    const sim::Int8Check r = sim::check_int8_execution(c, hw, b.g, in);
    EXPECT_EQ(r.status, "bit-exact") << s;
    ASSERT_TRUE(r.raw.count("y")) << s << ": " << r.status;
    EXPECT_EQ(r.raw.at("y").i, (std::vector<std::int64_t>{1, 4, 1})) << s;
  }
}

TEST(Conv3dInt8, AReferenceRoundingHalfAwayFromZero) {
  // The same graph with y on (scale 4, zp 0): M = 0.0625, acc 56 -> 3.5 rounds away from zero
  // to 4 (TFLite's rounding_divide_by_pot), 32 -> 2: y = (2, 4, 2).
  GraphBuilder b = hand_quantised();
  b.g.tensor("y").quant = QuantParams{{4.0f}, {0}, 1, ElemType::Int8};
  const compiler::QuantisedTensorMap ref = compiler::run_quantised_reference(b.g, {{"x", {1, 2, 3}}});
  EXPECT_EQ(ref.at("y").q, (std::vector<std::int8_t>{2, 4, 2}));
}

// r3d_18's residual block in small: x [1,3,5,6,6] -> Conv3d 4 x 3 x 3x3x3 + bias, strides
// (2,1,1), pads 1 -> BN -> Relu -> [1,4,3,6,6] -> Conv3d 4 x 4 x 3x1x1, depth pads 1 -> + the
// Relu's output -> Relu -> GlobalAveragePool -> [1,4,1,1,1].
GraphBuilder video_block_int8() {
  GraphBuilder b("video_block_int8");
  b.input("x", {1, 3, 5, 6, 6});
  b.constant("w1", {4, 3, 3, 3, 3}, -0.5f, 0.5f);
  b.constant("b1", {4}, -0.2f, 0.2f);
  b.add_tensor("c1", {1, 4, 3, 6, 6});
  Node& c1 = b.node("conv1", "Conv", {"x", "w1", "b1"}, {"c1"});
  c1.attrs["strides"] = V{2, 1, 1};
  c1.attrs["pads"] = V{1, 1, 1, 1, 1, 1};
  b.constant("g", {4}, 0.5f, 1.5f);
  b.constant("be", {4}, -0.1f, 0.1f);
  b.constant("m", {4}, -0.1f, 0.1f);
  b.constant("v", {4}, 0.5f, 1.5f);
  b.add_tensor("bn", {1, 4, 3, 6, 6});
  b.node("bn", "BatchNormalization", {"c1", "g", "be", "m", "v"}, {"bn"});
  b.add_tensor("r1", {1, 4, 3, 6, 6});
  b.node("relu1", "Relu", {"bn"}, {"r1"});
  b.constant("w2", {4, 4, 3, 1, 1}, -0.5f, 0.5f);
  b.add_tensor("c2", {1, 4, 3, 6, 6});
  b.node("conv2", "Conv", {"r1", "w2"}, {"c2"}).attrs["pads"] = V{1, 0, 0, 1, 0, 0};
  b.add_tensor("s", {1, 4, 3, 6, 6});
  b.node("add", "Add", {"c2", "r1"}, {"s"});
  b.add_tensor("r2", {1, 4, 3, 6, 6});
  b.node("relu2", "Relu", {"s"}, {"r2"});
  b.add_tensor("gap", {1, 4, 1, 1, 1});
  b.node("gap", "GlobalAveragePool", {"r2"}, {"gap"});
  b.output("gap");
  b.output("r1");
  return b;
}

TEST(Conv3dInt8, VideoBlockIsBitExactUnderEveryStrategyAndSramSize) {
  // 8 KiB: several channel and row tiles per depth slice; 1 MiB: one.
  const GraphBuilder b = video_block_int8();
  for (std::uint64_t sram : {std::uint64_t(8192), std::uint64_t(1) << 20}) {
    SCOPED_TRACE("sram " + std::to_string(sram));
    test::expect_int8_bit_exact_under_every_strategy(b.g, int8_hw(sram), 3, 4);
  }
}

TEST(Conv3dInt8, EveryForcedLoopOrderIsBitExact) {
  // The three loop orders of tiling/conv3d_plan.hpp, each at 2 KiB (where a resident order may
  // not fit: then only per-tap must compile), 8 KiB and 1 MiB; a tile's sum runs over its
  // (kd, channel group) CONVs with one requantisation in every case.
  const GraphBuilder b = video_block_int8();
  const compiler::Strategy st = compiler::builtin_strategy("conv-bn-act");
  const auto calib = compiler::generate_calibration(b.g, 3, 4);
  const compiler::RefTensorMap in = compiler::generate_calibration(b.g, 5, 1).at(0);
  const compiler::Graph qg = compiler::quantize_graph(b.g, st, calib).graph;
  for (compiler::DepthOrderPolicy p : {compiler::DepthOrderPolicy::WeightsResident,
                                       compiler::DepthOrderPolicy::InputResident, compiler::DepthOrderPolicy::PerTap})
    for (std::uint64_t sram : {std::uint64_t(2048), std::uint64_t(8192), std::uint64_t(1) << 20}) {
      compiler::CompileOptions opt;
      opt.tiling.conv3d_order = p;
      opt.smaller_sram_plans = false;
      const HwConfig hw = int8_hw(sram);
      compiler::CompileResult c;
      try {
        c = compiler::compile(qg, hw, st, opt);
      } catch (const ConfigError& e) {  // a resident order that does not fit 2 KiB
        EXPECT_NE(p, compiler::DepthOrderPolicy::PerTap) << e.what();
        continue;
      }
      const sim::Int8Check r = sim::check_int8_execution(c, hw, qg, in);
      EXPECT_EQ(r.status, "bit-exact") << int(p) << " " << sram;
    }
}

TEST(Conv3dInt8, ThreeDimensionalPoolsSayTheyHaveNoInt8Rule) {
  // MaxPool3d runs as two separable POOLs through a temporary with no grid: refused by name.
  GraphBuilder b("pool3d_int8");
  b.input("x", {1, 2, 4, 4, 4});
  b.g.tensor("x").quant = QuantParams{{0.1f}, {0}, 1, ElemType::Int8};
  b.add_tensor("y", {1, 2, 3, 2, 2}).quant = QuantParams{{0.1f}, {0}, 1, ElemType::Int8};
  Node& mp = b.node("mp", "MaxPool", {"x"}, {"y"});
  mp.attrs["kernel_shape"] = V{2, 2, 2};
  mp.attrs["strides"] = V{1, 2, 2};
  b.output("y");
  const auto c = compiler::compile(b.g, int8_hw(), compiler::builtin_strategy("none"));
  bool said = false;
  for (const auto& L : c.lowered.layers) said |= L.int8_problem.find("3-D MaxPool/AveragePool") != std::string::npos;
  EXPECT_TRUE(said);
  try {
    compiler::run_quantised_reference(b.g, {{"x", std::vector<float>(128, 0.f)}});
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("a 3-D MaxPool/AveragePool runs in fp32"), std::string::npos) << e.what();
  }
}

}  // namespace
