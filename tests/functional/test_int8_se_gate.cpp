// int8 on a MobileNetV3-style block (issue 28 kind 4): Conv + BN + HardSwish, depthwise Conv + BN
// + HardSwish, a squeeze-excitation gate (GlobalAveragePool, 1x1 Conv, Relu, 1x1 Conv,
// HardSigmoid) multiplying the depthwise output, then a 1x1 projection Conv + BN.
// - Every strategy runs bit-exact with the integer reference. Before this test, `residual` and
//   `depth-first` fused the gate into the projection's input (fuse-se-gate) on the quantised
//   graph, PTQ gave the gated tensor no grid, and the integer reference could not run (found on
//   the shared MobileNetV3-large export: "node .../Mul has no per-tensor int8 quantisation").
// - BN folding before quantisation does not invert the SQNR: folding gamma/sqrt(var) into the
//   weights is absorbed by their per-channel scales, and it removes one rounding (the Conv
//   output before the BN), so a folding strategy is at least as accurate as `none` up to the
//   noise of one rounding step; we allow 1 dB.
#include <gtest/gtest.h>

#include <iostream>

#include "int8_test_util.hpp"
#include "npu/compiler/quantize/error_metrics.hpp"
#include "test_compile_graphs.hpp"

using namespace npu;

namespace {

compiler::Graph se_hardswish_block() {
  compiler::testing::GraphBuilder b("se_hswish");
  b.input("x", {1, 3, 12, 12});
  const std::string a1 = b.unary("hs1", "HardSwish", b.bn("bn1", b.conv("conv1", "x", 16, 3, 1, 1)));
  const std::string a2 = b.unary("hs2", "HardSwish", b.bn("bn2", b.conv("dw", a1, 16, 3, 1, 1, 16)));
  b.add_tensor("gap.out", {1, 16, 1, 1});
  b.node("gap", "GlobalAveragePool", {a2}, {"gap.out"});
  const std::string s1 = b.unary("se.relu", "Relu", b.conv("se.fc1", "gap.out", 4, 1, 1, 0, 1, true));
  const std::string s2 = b.conv("se.fc2", s1, 16, 1, 1, 0, 1, true);
  compiler::Node& hsig = b.node("se.hsig", "HardSigmoid", {s2}, {"gate"});
  hsig.attrs["alpha"] = 1.0f / 6.0f;
  hsig.attrs["beta"] = 0.5f;
  b.add_tensor("gate", {1, 16, 1, 1});
  const std::string gated = b.binary("se.mul", "Mul", a2, "gate");
  b.output(b.bn("bn3", b.conv("proj", gated, 8, 1)));
  return b.g;
}

double int8_sqnr(const compiler::Graph& g, const HwConfig& hw, const std::string& strategy) {
  const compiler::Strategy st = compiler::builtin_strategy(strategy);
  const compiler::Graph qg = compiler::quantize_graph(g, st, compiler::generate_calibration(g, 5, 4)).graph;
  const compiler::RefTensorMap in = compiler::generate_calibration(g, 6, 1).at(0);
  const sim::Int8Check r = sim::check_int8_execution(compiler::compile(qg, hw, st), hw, qg, in);
  EXPECT_EQ(r.status, "bit-exact") << strategy;
  return compiler::sqnr_db(compiler::run_reference(g, in).at("bn3.out").f, r.outputs.at("bn3.out").f);
}

}  // namespace

TEST(Int8SeGate, EveryStrategyIsBitExactWithTheIntegerReference) {
  const HwConfig hw = load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  npu::test::expect_int8_bit_exact_under_every_strategy(se_hardswish_block(), hw, 5, 6);
}

TEST(Int8SeGate, TheGateFusesUnquantisedAndStaysAQuantisedMulInInt8WithItsReason) {
  const compiler::Graph g = se_hardswish_block();
  const compiler::Strategy st = compiler::builtin_strategy("residual");
  auto se_decision = [](const compiler::CompileResult& r) {
    for (const compiler::Decision& d : r.decisions)
      if (d.pass == "fuse-se-gate") return d;
    ADD_FAILURE() << "no fuse-se-gate decision";
    return compiler::Decision{};
  };
  // The unquantised graph (fp32 tensors) fuses the gate; its PTQ copy keeps the Mul.
  const HwConfig hw = load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  EXPECT_EQ(se_decision(compiler::compile(g, hw, st)).outcome, compiler::DecisionOutcome::Applied);
  const compiler::Graph qg = compiler::quantize_graph(g, st, compiler::generate_calibration(g, 5, 4)).graph;
  ASSERT_TRUE(qg.tensors.at("se.mul.out").quant) << "the gated tensor needs its own int8 grid";
  const compiler::Decision d = se_decision(compiler::compile(qg, hw, st));
  EXPECT_EQ(d.outcome, compiler::DecisionOutcome::Declined);
  EXPECT_NE(d.reason.find("quantised"), std::string::npos) << d.reason;
}

TEST(Int8SeGate, FoldingBeforeQuantisationDoesNotInvertTheSqnr) {
  const HwConfig hw = load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  const compiler::Graph g = se_hardswish_block();
  const double none = int8_sqnr(g, hw, "none");
  std::cout << "SE + HardSwish block, int8 vs fp32 SQNR: none " << none << " dB";
  for (const std::string s : {"conv-bn", "conv-bn-act", "residual", "depth-first"}) {
    const double folded = int8_sqnr(g, hw, s);
    std::cout << ", " << s << " " << folded << " dB";
    EXPECT_GT(folded, none - 1.0) << s;
  }
  std::cout << "\n";
  // Three int8 roundings of ~40 dB each and the HardSwish/HardSigmoid tables bound it well above 20 dB.
  EXPECT_GT(none, 20.0);
}
