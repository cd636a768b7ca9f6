// fuse-activation: every supported activation, SiLU matching, and the declines.
#include <gtest/gtest.h>

#include "npu/compiler/transforms/pass_manager.hpp"
#include "test_compile_graphs.hpp"

namespace npu::compiler {
namespace {

using testing::GraphBuilder;

std::vector<Decision> run(Graph& g, std::vector<std::string> passes = {"fuse-activation"}) {
  return PassManager::from_names(passes).run(g);
}

struct Case {
  const char* op;
  const char* act;
};

TEST(FuseActivation, FusesEachActivationIntoConvEpilogue) {
  for (const Case c : {Case{"Relu", "relu"}, Case{"LeakyRelu", "leaky_relu"}, Case{"Sigmoid", "sigmoid"},
                       Case{"HardSigmoid", "hard_sigmoid"}, Case{"HardSwish", "hard_swish"}, Case{"Tanh", "tanh"}}) {
    GraphBuilder b;
    const std::string y = b.unary("act", c.op, b.conv("conv", b.input("x", {1, 3, 8, 8}), 4, 3, 1, 1));
    b.output(y);
    Graph g = b.g;
    const auto d = run(g);
    ASSERT_EQ(d.size(), 1u) << c.op;
    EXPECT_EQ(d[0].outcome, DecisionOutcome::Applied) << c.op << ": " << d[0].reason;
    ASSERT_EQ(g.nodes.size(), 1u);
    EXPECT_EQ(g.nodes[0].op_type, "Conv");  // ONNX op name kept
    EXPECT_EQ(g.nodes[0].attr_string(fused_attr::kAct, ""), c.act);
    EXPECT_EQ(g.nodes[0].outputs[0], y);
    EXPECT_EQ(covered_nodes(g.nodes[0]), (std::vector<std::string>{"conv", "act"}));
  }
}

TEST(FuseActivation, LeakyReluAndHardSigmoidCarryTheirAttributes) {
  GraphBuilder b;
  const std::string c1 = b.conv("c1", b.input("x", {1, 3, 8, 8}), 4, 3, 1, 1);
  const std::string l = b.unary("leaky", "LeakyRelu", c1);
  b.g.nodes.back().attrs["alpha"] = 0.1f;
  const std::string h = b.unary("hsig", "HardSigmoid", b.conv("c2", l, 4, 1));
  b.output(h);
  Graph g = b.g;
  run(g);
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_FLOAT_EQ(g.nodes[0].attr_float(fused_attr::kActAlpha, 0), 0.1f);
  // ONNX HardSigmoid defaults: alpha 0.2, beta 0.5.
  EXPECT_FLOAT_EQ(g.nodes[1].attr_float(fused_attr::kActAlpha, 0), 0.2f);
  EXPECT_FLOAT_EQ(g.nodes[1].attr_float(fused_attr::kActBeta, 0), 0.5f);
}

TEST(FuseActivation, ClipBoundsFromAttributesOrConstantInputs) {
  // opset 9: min/max attributes.
  GraphBuilder b;
  b.output(b.unary("relu6", "Clip", b.conv("conv", b.input("x", {1, 3, 8, 8}), 4, 3, 1, 1)));
  b.g.nodes.back().attrs["min"] = 0.0f;
  b.g.nodes.back().attrs["max"] = 6.0f;
  Graph g = b.g;
  run(g);
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].attr_string(fused_attr::kAct, ""), "clip");
  EXPECT_FLOAT_EQ(g.nodes[0].attr_float(fused_attr::kActAlpha, -1), 0.0f);
  EXPECT_FLOAT_EQ(g.nodes[0].attr_float(fused_attr::kActBeta, -1), 6.0f);

  // opset >= 11: min/max as constant inputs (MobileNetV2's ReLU6).
  GraphBuilder b2;
  const std::string lo = b2.scalar("min", 0.0f), hi = b2.scalar("max", 6.0f);
  b2.output(b2.unary("relu6", "Clip", b2.conv("conv", b2.input("x", {1, 3, 8, 8}), 4, 3, 1, 1), {lo, hi}));
  Graph g2 = b2.g;
  const auto d = run(g2);
  ASSERT_EQ(g2.nodes.size(), 1u);
  EXPECT_FLOAT_EQ(g2.nodes[0].attr_float(fused_attr::kActBeta, -1), 6.0f);
}

TEST(FuseActivation, DeclinesClipWithRunTimeBound) {
  GraphBuilder b;
  const std::string hi = b.input("max", {});
  b.output(b.unary("clip", "Clip", b.conv("conv", b.input("x", {1, 3, 8, 8}), 4, 3, 1, 1), {"", hi}));
  Graph g = b.g;
  const auto d = run(g);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].outcome, DecisionOutcome::Declined);
  EXPECT_EQ(d[0].reason, "Clip max 'max' is computed at run time");
}

TEST(FuseActivation, MatchesSiluAsSigmoidAndMulOfTheSameTensor) {
  GraphBuilder b;
  const std::string y = b.silu("act", b.conv("conv", b.input("x", {1, 3, 8, 8}), 4, 3, 1, 1));
  b.output(y);
  Graph g = b.g;
  const auto d = run(g);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].outcome, DecisionOutcome::Applied);
  EXPECT_EQ(d[0].label, "conv -> act.sigmoid + act.mul");
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].attr_string(fused_attr::kAct, ""), "silu");
  EXPECT_EQ(g.nodes[0].outputs[0], y);
  EXPECT_EQ(covered_nodes(g.nodes[0]), (std::vector<std::string>{"conv", "act.sigmoid", "act.mul"}));
  EXPECT_FALSE(g.has_tensor("act.sigmoid.out"));
}

TEST(FuseActivation, SigmoidTimesOtherTensorIsNotSilu) {
  // Sigmoid(x) * z with z != x is a plain Sigmoid followed by a Mul: only the Sigmoid fuses.
  GraphBuilder b;
  const std::string x = b.input("x", {1, 3, 8, 8});
  const std::string s = b.unary("sig", "Sigmoid", b.conv("conv", x, 3, 3, 1, 1));
  b.output(b.binary("mul", "Mul", s, x));
  Graph g = b.g;
  run(g);
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[0].attr_string(fused_attr::kAct, ""), "sigmoid");
  EXPECT_EQ(g.nodes[1].op_type, "Mul");
}

TEST(FuseActivation, DeclinesWhenConvOutputHasAnotherConsumer) {
  GraphBuilder b;
  const std::string c = b.conv("conv", b.input("x", {1, 3, 8, 8}), 4, 3, 1, 1);
  const std::string r = b.unary("relu", "Relu", c);
  b.output(b.binary("add", "Add", r, c));
  Graph g = b.g;
  const auto d = run(g);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(format_explain(d), "fuse-activation  conv -> relu  declined: Conv output also feeds add\n");
}

TEST(FuseActivation, ConvBnReluIsNotFusedWithoutFolding) {
  // The conv-act strategy: BN stays an ACT scale_shift between the Conv and the Relu.
  GraphBuilder b;
  b.output(b.unary("relu1", "Relu", b.bn("bn1", b.conv("conv1", b.input("x", {1, 3, 8, 8}), 4, 3, 1, 1))));
  Graph g = b.g;
  const auto d = run(g);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(format_explain(d),
            "fuse-activation  conv1 -> relu1  declined: BatchNormalization bn1 between conv and Relu (not folded before "
            "this pass: fold-batchnorm absent or later in the strategy)\n");
  EXPECT_EQ(g.nodes.size(), 3u);
  // With folding first (conv-bn-act) the same graph becomes one node.
  Graph g2 = b.g;
  run(g2, {"fold-batchnorm", "fuse-activation"});
  ASSERT_EQ(g2.nodes.size(), 1u);
  EXPECT_EQ(covered_nodes(g2.nodes[0]), (std::vector<std::string>{"conv1", "bn1", "relu1"}));
}

TEST(FuseActivation, ReluAfterAddPointsAtFuseResidual) {
  GraphBuilder b;
  const std::string x = b.input("x", {1, 4, 8, 8});
  const std::string c = b.conv("layer4.2.conv3", x, 4, 1);
  b.output(b.unary("relu", "Relu", b.binary("add", "Add", c, x)));
  Graph g = b.g;
  const auto d = run(g);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(format_explain(d),
            "fuse-activation  layer4.2.conv3 -> relu  declined: Add add between conv and Relu (see fuse-residual)\n");
}

TEST(FuseActivation, AConstantAddThatIsNoBiasIsNamedAsSuch) {
  // Conv [1,16,4,16] -> Add of a [16] constant (it broadcasts over W, not the channels) -> Relu:
  // fuse-residual has nothing to say about a constant Add, so pointing there was hollow
  // (new-user finding). The decline names the constant and why it is no bias.
  GraphBuilder b;
  const std::string c = b.conv("conv", b.input("x", {1, 3, 4, 16}), 16, 1, 1, 0);
  b.output(b.unary("relu", "Relu", b.binary("add", "Add", c, b.constant("k", {16}, -1.0f, 1.0f))));
  Graph g = b.g;
  const auto d = run(g);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].outcome, DecisionOutcome::Declined);
  EXPECT_NE(d[0].reason.find("Add add of constant 'k' [16] between conv and Relu: not one value per output channel"),
            std::string::npos)
      << d[0].reason;
  EXPECT_EQ(d[0].reason.find("see fuse-residual"), std::string::npos) << d[0].reason;
}

TEST(FuseActivation, FusesIntoGemm) {
  GraphBuilder b;
  const std::string y = b.global_avg_pool_flatten_gemm("head", b.input("x", {1, 8, 4, 4}), 10);
  b.output(b.unary("relu", "Relu", y));
  Graph g = b.g;
  run(g);
  EXPECT_EQ(g.nodes.back().op_type, "Gemm");
  EXPECT_EQ(g.nodes.back().attr_string(fused_attr::kAct, ""), "relu");
}

TEST(FuseActivation, DeclinesAProducerTheHostRuns) {
  // New-user finding: a Gemm placed on the host (there: transA = 1) took the NPU Relu after it.
  GraphBuilder b;
  const std::string y = b.global_avg_pool_flatten_gemm("head", b.input("x", {1, 8, 4, 4}), 10);
  b.output(b.unary("relu", "Relu", y));
  Graph g = b.g;
  Node& gemm = g.nodes[std::size_t(find_node(g, "head.fc"))];
  gemm.on_host = true;
  gemm.host_reason = "Gemm transA=1: no NPU lowering";
  const auto d = run(g);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].outcome, DecisionOutcome::Declined);
  EXPECT_EQ(d[0].reason, "Gemm head.fc runs on the host (Gemm transA=1: no NPU lowering); Relu stays an NPU layer of its own");
  EXPECT_EQ(g.nodes.back().op_type, "Relu");
  EXPECT_EQ(g.nodes[std::size_t(find_node(g, "head.fc"))].attr_string(fused_attr::kAct, ""), "");
}

}  // namespace
}  // namespace npu::compiler
