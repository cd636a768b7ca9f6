// fuse-residual: Conv + Add(skip) [+ Relu] into one Conv reading the skip tensor.
#include <gtest/gtest.h>

#include <set>

#include "npu/compiler/transforms/pass_manager.hpp"
#include "test_compile_graphs.hpp"

namespace npu::compiler {
namespace {

using testing::GraphBuilder;

// Every node's non-constant inputs are produced by an earlier node or are graph inputs.
bool topologically_ordered(const Graph& g) {
  std::set<std::string> ready(g.inputs.begin(), g.inputs.end());
  for (const auto& n : g.nodes) {
    for (const auto& in : n.inputs)
      if (!in.empty() && !g.tensor(in).is_constant && !ready.count(in)) return false;
    ready.insert(n.outputs.begin(), n.outputs.end());
  }
  return true;
}

// A torchvision bottleneck with a downsample branch: the main conv3 comes BEFORE the
// downsample conv that produces the skip, so the fused conv must move after it.
Graph downsample_block() {
  GraphBuilder b;
  const std::string x = b.input("x", {1, 8, 8, 8});
  const std::string m = b.unary("relu1", "Relu", b.bn("bn1", b.conv("conv1", x, 4, 1)));
  const std::string main = b.bn("bn3", b.conv("conv3", m, 16, 3, 2, 1));
  const std::string skip = b.bn("ds.bn", b.conv("ds.conv", x, 16, 1, 2, 0));
  b.output(b.unary("relu3", "Relu", b.binary("add", "Add", main, skip)));
  return b.g;
}

TEST(FuseResidual, FusesConvAddReluReadingTheSkipTensor) {
  Graph g = downsample_block();
  const auto d = PassManager::from_names({"fold-batchnorm", "fuse-activation", "fuse-residual"}).run(g);
  ASSERT_EQ(g.nodes.size(), 3u);  // conv1(+bn1+relu1), conv3(+bn3), ds.conv(+ds.bn+add+relu3)
  EXPECT_TRUE(topologically_ordered(g));
  // Both Add inputs are conv outputs; the one produced later (ds.conv) is the anchor, so
  // the other (conv3's) is already computed when the fused node runs.
  const Node& fused = g.nodes.back();
  EXPECT_EQ(fused.name, "ds.conv");
  ASSERT_EQ(fused.inputs.size(), 4u);
  EXPECT_EQ(fused.inputs[3], "bn3.out");  // the skip
  EXPECT_EQ(fused.attr_int(fused_attr::kResidual, 0), 1);
  EXPECT_EQ(fused.attr_string(fused_attr::kAct, ""), "relu");
  EXPECT_EQ(covered_nodes(fused), (std::vector<std::string>{"ds.conv", "ds.bn", "add", "relu3"}));
  EXPECT_EQ(fused.outputs[0], "relu3.out");
  ASSERT_FALSE(d.empty());
  EXPECT_EQ(d.back().pass, "fuse-residual");
  EXPECT_EQ(d.back().label, "ds.conv + add -> relu3");
  EXPECT_EQ(d.back().outcome, DecisionOutcome::Applied);
}

TEST(FuseResidual, ABatchNormBetweenConvAndAddIsNamedWhenNotFoldedFirst) {
  // A strategy running fuse-residual before fold-batchnorm: both Add inputs come from a BN, so
  // the Add has no Conv producer. The decline names the BN (it said "no candidate in the graph";
  // new-user finding) and nothing is rewritten.
  Graph g = downsample_block();
  const std::size_t nodes = g.nodes.size();
  const auto d = PassManager::from_names({"fuse-residual"}).run(g);
  EXPECT_EQ(g.nodes.size(), nodes);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].outcome, DecisionOutcome::Declined);
  EXPECT_EQ(d[0].label, "conv3 + add");
  EXPECT_EQ(d[0].reason, "BatchNormalization bn3 between conv and Add add (not folded before this pass: "
                         "fold-batchnorm absent or later in the strategy)");
}

TEST(FuseResidual, FusedConvMovesAfterTheSkipProducer) {
  // conv3 runs before the MaxPool that produces the skip: the fused node must move after it.
  GraphBuilder b;
  const std::string x = b.input("x", {1, 4, 8, 8});
  const std::string c = b.conv("conv3", x, 4, 3, 1, 1);
  const std::string skip = b.maxpool("pool", x, 3, 1, 1);
  b.output(b.binary("add", "Add", c, skip));
  Graph g = b.g;
  PassManager::from_names({"fuse-residual"}).run(g);
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[0].name, "pool");
  EXPECT_EQ(g.nodes[1].name, "conv3");
  EXPECT_EQ(g.nodes[1].inputs[3], "pool.out");
  EXPECT_TRUE(topologically_ordered(g));
}

TEST(FuseResidual, DeclinesWhenActivationAlreadyFused) {
  // YOLOv5 bottleneck: x + SiLU(conv(...)): the SiLU is fused first, and the epilogue adds the
  // residual before the activation, so the Add cannot join.
  GraphBuilder b;
  const std::string x = b.input("x", {1, 4, 8, 8});
  const std::string y = b.silu("act", b.conv("cv2", x, 4, 3, 1, 1));
  b.output(b.binary("add", "Add", x, y));
  Graph g = b.g;
  const auto d = PassManager::from_names({"fuse-activation", "fuse-residual"}).run(g);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[1].outcome, DecisionOutcome::Declined);
  EXPECT_EQ(d[1].reason, "activation silu already fused into cv2 (the epilogue adds the residual before the activation)");
}

TEST(FuseResidual, DeclinesBroadcastingAdd) {
  GraphBuilder b;
  const std::string c = b.conv("conv", b.input("x", {1, 4, 8, 8}), 4, 3, 1, 1);
  const std::string other = b.conv("other", b.input("z", {1, 4, 1, 1}), 4, 1);
  b.output(b.binary("add", "Add", c, other));
  Graph g = b.g;
  const auto d = PassManager::from_names({"fuse-residual"}).run(g);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].outcome, DecisionOutcome::Declined);
  // Both Add inputs are conv outputs; the later one ("other") is the anchor, so its shape comes first.
  EXPECT_EQ(d[0].reason, "shape mismatch [1, 4, 1, 1] vs [1, 4, 8, 8] (broadcasting Add is not fused)");
}

TEST(FuseResidual, DeclinesWhenConvOutputHasAnotherConsumer) {
  GraphBuilder b;
  const std::string x = b.input("x", {1, 4, 8, 8});
  const std::string c = b.conv("conv", x, 4, 3, 1, 1);
  const std::string a = b.binary("add", "Add", c, x);
  b.output(b.binary("mul", "Mul", a, c));
  Graph g = b.g;
  const auto d = PassManager::from_names({"fuse-residual"}).run(g);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].reason, "conv output also feeds mul");
}

TEST(FuseResidual, AddWithoutReluKeepsNoActivation) {
  // MobileNetV2 inverted residual: projection conv (linear) + skip.
  GraphBuilder b;
  const std::string x = b.input("x", {1, 4, 8, 8});
  const std::string p = b.bn("bn", b.conv("project", x, 4, 1));
  b.output(b.binary("add", "Add", x, p));
  Graph g = b.g;
  PassManager::from_names({"fold-batchnorm", "fuse-activation", "fuse-residual"}).run(g);
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].attr_string(fused_attr::kAct, ""), "");
  EXPECT_EQ(g.nodes[0].inputs[3], "x");
}

}  // namespace
}  // namespace npu::compiler
