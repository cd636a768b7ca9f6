// hoist-activation: an activation after Reshape/Transpose of a Conv's output moves onto the
// Conv's output (YOLOv5's detection head), so fuse-activation fuses it.
#include <gtest/gtest.h>

#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/transforms/pass_manager.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "test_compile_graphs.hpp"

namespace npu::compiler {
namespace {

using testing::GraphBuilder;

// x [1,4,6,6] -> conv 1x1 4->6 -> Reshape [1,3,2,6,6] -> Transpose(0,1,3,4,2) -> ACT -> y.
// `shared`: the Transpose output is also a graph output.
Graph head(const std::string& act, bool shared = false) {
  GraphBuilder b("head");
  const std::string x = b.input("x", {1, 4, 6, 6});
  const std::string c = b.conv("conv", x, 6, 1, 1, 0, 1, true);
  Tensor& shape = b.add_tensor("shape", {5}, true);
  shape.type = ElemType::Int64;
  shape.int_data = {1, 3, 2, 6, 6};
  b.add_tensor("r", {1, 3, 2, 6, 6});
  b.node("reshape", "Reshape", {c, "shape"}, {"r"});
  b.add_tensor("t", {1, 3, 6, 6, 2});
  b.node("transpose", "Transpose", {"r"}, {"t"}).attrs["perm"] = std::vector<std::int64_t>{0, 1, 3, 4, 2};
  b.output(b.unary("act", act, "t"));
  if (shared) b.output("t");
  return b.g;
}

TEST(HoistActivation, SigmoidMovesOntoTheConvAndFuses) {
  Graph g = head("Sigmoid");
  const auto d = PassManager::from_names({"hoist-activation", "fuse-activation"}).run(g);
  ASSERT_GE(d.size(), 2u);
  EXPECT_EQ(d[0].outcome, DecisionOutcome::Applied);
  EXPECT_EQ(d[0].label, "conv -> reshape -> transpose -> act");
  // conv (sigmoid fused), reshape, transpose; the output keeps its name and shape.
  ASSERT_EQ(g.nodes.size(), 3u);
  EXPECT_EQ(g.nodes[0].name, "conv");
  EXPECT_EQ(g.nodes[0].attr_string(fused_attr::kAct, ""), "sigmoid");
  EXPECT_EQ(g.nodes[1].op_type, "Reshape");
  EXPECT_EQ(g.nodes[2].op_type, "Transpose");
  EXPECT_EQ(g.nodes[2].outputs[0], "act.out");
  EXPECT_EQ(g.tensor("act.out").shape, (std::vector<std::int64_t>{1, 3, 6, 6, 2}));
  EXPECT_FALSE(g.has_tensor("t"));
  // The conv's output is what the reshape reads, shaped like the conv's output.
  EXPECT_EQ(g.nodes[1].inputs[0], g.nodes[0].outputs[0]);
  EXPECT_EQ(g.tensor(g.nodes[1].inputs[0]).shape, (std::vector<std::int64_t>{1, 6, 6, 6}));
}

TEST(HoistActivation, DeclinesWhenAnIntermediateIsAlsoAnOutput) {
  Graph g = head("Relu", true);
  const auto d = PassManager::from_names({"hoist-activation"}).run(g);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].outcome, DecisionOutcome::Declined);
  EXPECT_EQ(d[0].reason, "t is a graph output (it must keep its values)");
  EXPECT_EQ(g.nodes.back().op_type, "Relu");
}

TEST(HoistActivation, FusingStrategiesHoistAndTheOthersDoNot) {
  const HwConfig hw = testing::edge_like_hw();
  for (const std::string& s : builtin_strategy_names()) {
    const CompileResult r = compile(head("Sigmoid"), hw, builtin_strategy(s));
    const bool fuses = s != "none" && s != "conv-bn";
    int act_layers = 0;
    for (const auto& L : r.lowered.layers) act_layers += L.op_type == "Sigmoid";
    EXPECT_EQ(act_layers, fuses ? 0 : 1) << s;
  }
}

// hoist-activation with no fuse-activation after it (a strategy file's pass order) moves the
// activation but nothing fuses it: compile warns, naming the fix; with fuse-activation after
// it, or when nothing was hoisted, it does not.
TEST(HoistActivation, WithoutALaterFuseActivationCompileWarns) {
  const HwConfig hw = testing::edge_like_hw();
  auto warned = [&](const std::string& yaml, const Graph& g) {
    const CompileResult r = compile(g, hw, parse_strategy_yaml(yaml));
    for (const auto& w : r.warnings)
      if (w.find("hoist-activation moved 1 activation(s) onto Conv/Gemm outputs, but no fuse-activation runs after "
                 "it") != std::string::npos)
        return true;
    return false;
  };
  EXPECT_TRUE(warned("name: h\npasses: [fuse-activation, hoist-activation]\n", head("Sigmoid")));
  EXPECT_TRUE(warned("name: h\npasses: [hoist-activation]\n", head("Sigmoid")));
  EXPECT_FALSE(warned("name: h\npasses: [hoist-activation, fuse-activation]\n", head("Sigmoid")));
  EXPECT_FALSE(warned("name: h\npasses: [hoist-activation]\n", head("Relu", true)));  // declined: nothing moved
}

}  // namespace
}  // namespace npu::compiler
