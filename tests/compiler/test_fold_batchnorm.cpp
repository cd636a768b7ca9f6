// fold-batchnorm: numerics against a reference interpreter, graph structure, and every
// legality rule with its --explain reason.
#include <gtest/gtest.h>

#include "npu/compiler/transforms/pass_manager.hpp"
#include "npu/compiler/transforms/fusion/fold_batchnorm.hpp"
#include "test_compile_graphs.hpp"

namespace npu::compiler {
namespace {

using testing::GraphBuilder;

std::vector<Decision> run_fold(Graph& g) { return PassManager::from_names({"fold-batchnorm"}).run(g); }

// Conv then BN computed by the reference interpreter on the original graph vs. the folded
// Conv alone: the README's relative error (max abs error / max abs output) must be <= 1e-5.
void check_numerics(int c_in, int c_out, int k, int stride, int pad, int group, bool bias, float eps) {
  GraphBuilder b;
  const std::string x = b.input("x", {1, c_in, 9, 7});
  const std::string y = b.bn("bn", b.conv("conv", x, c_out, k, stride, pad, group, bias), eps);
  b.output(y);
  const Graph original = b.g;

  std::vector<float> input(std::size_t(c_in * 9 * 7));
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  for (auto& v : input) v = d(rng);

  const Tensor& w = original.tensor("conv.weight");
  std::vector<double> expected = testing::ref_conv(input, {1, c_in, 9, 7}, w.float_data, w.shape,
                                                   bias ? &original.tensor("conv.bias").float_data : nullptr, stride,
                                                   pad, group);
  testing::ref_bn(expected, c_out, original.tensor("bn.scale").float_data, original.tensor("bn.B").float_data,
                  original.tensor("bn.mean").float_data, original.tensor("bn.var").float_data, eps);

  Graph folded = original;
  const auto decisions = run_fold(folded);
  ASSERT_EQ(decisions.size(), 1u);
  ASSERT_EQ(decisions[0].outcome, DecisionOutcome::Applied) << decisions[0].reason;
  ASSERT_EQ(folded.nodes.size(), 1u);
  const Node& conv = folded.nodes[0];
  const Tensor& wf = folded.tensor(conv.inputs[1]);
  const Tensor& bf = folded.tensor(conv.inputs[2]);
  ASSERT_EQ(wf.float_data.size(), w.float_data.size());
  ASSERT_EQ(bf.float_data.size(), std::size_t(c_out));
  const std::vector<double> got =
      testing::ref_conv(input, {1, c_in, 9, 7}, wf.float_data, wf.shape, &bf.float_data, stride, pad, group);
  EXPECT_LE(testing::rel_error(got, expected), 1e-5);
}

TEST(FoldBatchNorm, FoldedConvEqualsConvThenBnWithBias) { check_numerics(3, 8, 3, 1, 1, 1, true, 1e-5f); }
TEST(FoldBatchNorm, MissingConvBiasCountsAsZero) { check_numerics(4, 6, 3, 2, 1, 1, false, 1e-3f); }
TEST(FoldBatchNorm, DepthwiseConvFoldsPerChannel) { check_numerics(6, 6, 3, 1, 1, 6, false, 1e-5f); }
TEST(FoldBatchNorm, OneByOneConvWithBias) { check_numerics(5, 4, 1, 1, 0, 1, true, 1e-5f); }

TEST(FoldBatchNorm, RewritesGraphAndRecordsCoveredNodes) {
  GraphBuilder b;
  const std::string y = b.unary("relu", "Relu", b.bn("bn1", b.conv("conv1", b.input("x", {1, 3, 8, 8}), 4, 3, 1, 1)));
  b.output(y);
  Graph g = b.g;
  const auto d = run_fold(g);
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[0].op_type, "Conv");
  EXPECT_EQ(g.nodes[0].outputs[0], "bn1.out");  // the conv now writes the BN's output
  EXPECT_EQ(covered_nodes(g.nodes[0]), (std::vector<std::string>{"conv1", "bn1"}));
  EXPECT_EQ(g.nodes[0].attr_string(fused_attr::kFoldedBn, ""), "bn1");
  EXPECT_FALSE(g.has_tensor("conv1.out"));  // the intermediate tensor is gone
  EXPECT_EQ(g.nodes[1].inputs[0], "bn1.out");
  EXPECT_EQ(format_explain(d), "fold-batchnorm  conv1 + bn1  folded\n");
}

TEST(FoldBatchNorm, StructuralFoldWhenConstantsHaveNoData) {
  GraphBuilder b;
  b.with_data = false;  // like the zoo: constants have shapes, no values
  b.output(b.bn("bn", b.conv("conv", b.input("x", {1, 3, 8, 8}), 4, 3, 1, 1)));
  Graph g = b.g;
  const auto d = run_fold(g);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].outcome, DecisionOutcome::Applied);
  EXPECT_EQ(d[0].reason, "structural: constant values not materialised");
  EXPECT_EQ(g.tensor(g.nodes[0].inputs[2]).shape, (std::vector<std::int64_t>{4}));
  EXPECT_TRUE(g.tensor(g.nodes[0].inputs[2]).is_constant);
}

TEST(FoldBatchNorm, DeclinesWhenConvOutputFeedsAnotherBranch) {
  GraphBuilder b;
  const std::string c = b.conv("layer1.0.conv3", b.input("x", {1, 4, 8, 8}), 4, 1);
  const std::string y = b.bn("bn3", c);
  const std::string z = b.unary("downsample", "Relu", c);
  b.output(b.binary("add", "Add", y, z));
  Graph g = b.g;
  const auto d = run_fold(g);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].outcome, DecisionOutcome::Declined);
  EXPECT_EQ(format_explain(d), "fold-batchnorm  layer1.0.conv3 + bn3  declined: conv output also feeds downsample\n");
  EXPECT_EQ(g.nodes.size(), 4u);  // unchanged
}

TEST(FoldBatchNorm, DeclinesNonConstantStatistics) {
  GraphBuilder b;
  const std::string x = b.input("x", {1, 3, 8, 8});
  const std::string c = b.conv("conv", x, 4, 3, 1, 1);
  const std::string y = b.bn("bn", c);
  b.output(y);
  b.input("running_mean", {4});  // statistics fed at run time
  b.g.nodes[1].inputs[3] = "running_mean";
  Graph g = b.g;
  const auto d = run_fold(g);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].outcome, DecisionOutcome::Declined);
  EXPECT_EQ(d[0].reason, "statistics not constant: mean 'running_mean' is computed at run time");
  EXPECT_NE(format_explain(d).find("declined: statistics not constant"), std::string::npos);
}

TEST(FoldBatchNorm, DeclinesMismatchedChannelCount) {
  GraphBuilder b;
  const std::string c = b.conv("conv", b.input("x", {1, 3, 8, 8}), 8, 3, 1, 1);
  b.output(b.bn("bn", c));
  b.g.tensors["bn.scale"].shape = {4};  // BN over 4 channels after an 8-channel conv
  b.g.tensors["bn.scale"].float_data.resize(4);
  Graph g = b.g;
  const auto d = run_fold(g);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].outcome, DecisionOutcome::Declined);
  EXPECT_EQ(d[0].reason, "channel count mismatch: conv has 8 output channels, BatchNormalization scale has 4");
}

TEST(FoldBatchNorm, DeclinesTrainingFormAndGraphOutputs) {
  GraphBuilder b;
  const std::string c = b.conv("conv", b.input("x", {1, 3, 8, 8}), 4, 3, 1, 1);
  b.output(b.bn("bn", c));
  b.g.nodes[1].outputs.push_back("running_mean_out");
  b.g.nodes[1].outputs.push_back("running_var_out");
  Graph g = b.g;
  auto d = run_fold(g);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].reason, "training-form BatchNormalization (3 outputs; only the 1-output inference form folds)");

  GraphBuilder b2;
  const std::string c2 = b2.conv("conv", b2.input("x", {1, 3, 8, 8}), 4, 3, 1, 1);
  b2.output(b2.bn("bn", c2));
  b2.output(c2);  // the conv output is itself a graph output
  Graph g2 = b2.g;
  d = run_fold(g2);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].reason, "conv output is a graph output");
}

TEST(FoldBatchNorm, BatchNormNotAfterConvIsDeclinedWithItsReason) {
  // Not folded, and --explain says why (was: no line at all).
  GraphBuilder b;
  b.output(b.bn("bn", b.unary("relu", "Relu", b.input("x", {1, 3, 8, 8}))));
  Graph g = b.g;
  const auto d = run_fold(g);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].outcome, DecisionOutcome::Declined);
  EXPECT_EQ(d[0].reason, "input comes from Relu relu, not a Conv");
  GraphBuilder b2;
  b2.output(b2.bn("bn_in", b2.input("x", {1, 3, 8, 8})));
  Graph g2 = b2.g;
  const auto d2 = run_fold(g2);
  ASSERT_EQ(d2.size(), 1u);
  EXPECT_EQ(d2[0].reason, "input 'x' is a graph input or a constant, not a Conv output");
}

TEST(FoldBatchNorm, SecondBatchNormAfterAFoldedOneSaysWhy) {
  GraphBuilder b;
  const std::string c = b.conv("conv", b.input("x", {1, 3, 8, 8}), 4, 3, 1, 1);
  b.output(b.bn("bn2", b.bn("bn1", c)));
  Graph g = b.g;
  const auto d = run_fold(g);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].outcome, DecisionOutcome::Applied);
  EXPECT_EQ(d[1].outcome, DecisionOutcome::Declined);
  EXPECT_EQ(d[1].reason,
            "second BatchNormalization after one folded into conv (each BN is matched once, against its input at "
            "the start of the pass)");
}

}  // namespace
}  // namespace npu::compiler
