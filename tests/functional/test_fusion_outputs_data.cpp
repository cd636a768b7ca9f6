// Fusion legality checked by values: graphs whose intermediates are also graph outputs or
// have several consumers, compiled under every built-in strategy and executed with data.
// Every strategy must give every graph output, equal to a direct computation here.
#include <gtest/gtest.h>

#include <cmath>

#include "functional_test_util.hpp"
#include "npu/compiler/backend/emit/ddr_image.hpp"
#include "npu/compiler/transforms/strategy.hpp"

namespace {

using namespace npu;
using compiler::testing::GraphBuilder;

// Conv(3->4, 3x3, pad 1, bias) -> SiLU as Sigmoid + Mul, with the Sigmoid output also a graph
// output (the case of issue 10: under conv-act it once vanished from the program).
TEST(FusionOutputsData, SiluWhoseSigmoidIsAGraphOutput) {
  GraphBuilder b;
  const std::string x = b.input("x", {1, 3, 8, 8});
  const std::string c = b.conv("conv", x, 4, 3, 1, 1, 1, true);
  const std::string s = b.unary("sig", "Sigmoid", c);
  const std::string y = b.binary("mul", "Mul", c, s);
  b.output(s);
  b.output(y);
  const std::vector<float> xv = test::random_values(192, 21);
  const std::vector<float> bias = b.g.tensors.at("conv.bias").float_data;
  const std::vector<double> conv = compiler::testing::ref_conv(xv, {1, 3, 8, 8}, b.g.tensors.at("conv.weight").float_data,
                                                               {4, 3, 3, 3}, &bias, 1, 1, 1);
  std::vector<double> sig(conv.size()), silu(conv.size());
  for (std::size_t i = 0; i < conv.size(); ++i) {
    sig[i] = 1.0 / (1.0 + std::exp(-conv[i]));
    silu[i] = conv[i] * sig[i];
  }
  const HwConfig hw = test::fp32_hw();
  for (const std::string& strat : compiler::builtin_strategy_names()) {
    SCOPED_TRACE("strategy " + strat);
    const auto comp = compiler::compile(b.g, hw, compiler::builtin_strategy(strat));
    const auto r = test::run_forked(comp, hw, {{"x", xv}}, true);
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_EQ(r.outputs.count(s), 1u);
    ASSERT_EQ(r.outputs.count(y), 1u);
    EXPECT_LE(test::rel_err(r.outputs.at(s), sig), 1e-5) << "Sigmoid output (graph output)";
    EXPECT_LE(test::rel_err(r.outputs.at(y), silu), 1e-5) << "SiLU output";
  }
}

// Conv -> BN -> Relu where the BN output is also a graph output and the Conv output feeds a
// second Conv: folding and fusing must keep both intermediates.
TEST(FusionOutputsData, IntermediatesThatAreGraphOutputsOrShared) {
  GraphBuilder b;
  const std::string x = b.input("x", {1, 4, 10, 10});
  const std::string c1 = b.conv("c1", x, 6, 3, 1, 1);
  const std::string n1 = b.bn("bn1", c1);
  const std::string r1 = b.unary("relu1", "Relu", n1);
  const std::string c2 = b.conv("c2", c1, 6, 1, 1, 0);
  const std::string sum = b.binary("add", "Add", r1, c2);
  b.output(n1);
  b.output(sum);
  const std::vector<float> xv = test::random_values(400, 22);
  auto& T = b.g.tensors;
  std::vector<double> d1 = compiler::testing::ref_conv(xv, {1, 4, 10, 10}, T.at("c1.weight").float_data, {6, 4, 3, 3},
                                                       nullptr, 1, 1, 1);
  std::vector<double> bn = d1;
  compiler::testing::ref_bn(bn, 6, T.at("bn1.scale").float_data, T.at("bn1.B").float_data, T.at("bn1.mean").float_data,
                            T.at("bn1.var").float_data, 1e-5);
  const std::vector<float> c1f(d1.begin(), d1.end());
  const std::vector<double> d2 = compiler::testing::ref_conv(c1f, {1, 6, 10, 10}, T.at("c2.weight").float_data,
                                                             {6, 6, 1, 1}, nullptr, 1, 0, 1);
  std::vector<double> want(bn.size());
  for (std::size_t i = 0; i < bn.size(); ++i) want[i] = (bn[i] > 0 ? bn[i] : 0.0) + d2[i];
  const HwConfig hw = test::fp32_hw();
  for (const std::string& strat : compiler::builtin_strategy_names()) {
    SCOPED_TRACE("strategy " + strat);
    const auto comp = compiler::compile(b.g, hw, compiler::builtin_strategy(strat));
    const auto r = test::run_forked(comp, hw, {{"x", xv}}, true);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_LE(test::rel_err(r.outputs.at(n1), bn), 1e-5) << "BN output (graph output)";
    EXPECT_LE(test::rel_err(r.outputs.at(sum), want), 1e-5) << "sum";
  }
}

}  // namespace

namespace {

// Was a bug (codegen gen_copy, fixed: one set of slots for all inputs): a Concat copy layer with
// inputs of different sizes laid out its ping-pong SRAM slots per input, but its steps and
// tokens run on across inputs, so the first LOAD of input 1 (step 1, no wait) landed in SRAM
// still holding step 0's input before step 0's copy ran: a race on SRAM the tokens do not order. Here:
// Concat([1,12,4,3], [1,4,4,3]) -> step 0 loads 144 fp32 into [0x0, 0x240), step 1 loads 48
// into 0xc0. Found by the random-graph campaign (old generator seed 108185, strategy none).
TEST(FusionOutputsData, ConcatCopyOfUnequalInputsKeepsBothParts) {
  npu::compiler::testing::GraphBuilder b;
  const std::string a = b.input("a", {1, 12, 4, 3});
  const std::string c = b.input("c", {1, 4, 4, 3});
  const std::string y = b.concat("cat", {a, c});
  b.output(y);
  const npu::HwConfig hw = npu::test::fp32_hw(64 * 1024);
  const auto comp = npu::compiler::compile(b.g, hw, npu::compiler::builtin_strategy("none"));
  const std::vector<float> av = npu::test::random_values(144, 31), cv = npu::test::random_values(48, 32);
  // Ideal memory: the LOADs take no time, so step 1's LOAD lands before step 0's copy ends.
  const auto r = npu::test::run_forked(comp, hw, {{a, av}, {c, cv}}, true, "", true);
  ASSERT_TRUE(r.ok) << r.error;
  std::vector<double> want(av.begin(), av.end());
  want.insert(want.end(), cv.begin(), cv.end());
  EXPECT_EQ(npu::test::rel_err(r.outputs.at(y), want), 0.0);
}

}  // namespace
