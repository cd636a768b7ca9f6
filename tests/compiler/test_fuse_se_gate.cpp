// fuse-se-gate: Mul(x, gate[N, C, 1, 1]) -> Conv becomes a Conv that scales its input channels.
#include <gtest/gtest.h>

#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/transforms/pass_manager.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "test_compile_graphs.hpp"

namespace npu::compiler {
namespace {

using testing::GraphBuilder;

// x -> conv1 -> Mul(., g) -> conv2, with g a [1, 4, 1, 1] tensor (a computed gate:
// tests/compiler/test_real_exports.cpp FuseSeGate.GateMulMovesIntoTheConsumingConv).
Graph gated(bool constant_gate) {
  GraphBuilder b;
  const std::string x = b.input("x", {1, 6, 12, 12});
  const std::string t = b.conv("conv1", x, 4, 3, 1, 1);
  const std::string gate = constant_gate ? b.constant("gain", {1, 4, 1, 1}, 0.5f, 1.5f)
                                         : b.unary("gate", "Sigmoid", b.input("s", {1, 4, 1, 1}));
  b.output(b.conv("conv2", b.binary("scale", "Mul", t, gate), 4, 3, 1, 1));
  return b.g;
}

// A constant factor is a per-channel scale (a converter's Scale layer): fusing it dropped the
// constant before lowering, and compiling failed with "graph has no tensor 'gain'". It stays
// a broadcasting Mul, and every strategy compiles.
TEST(FuseSeGate, ConstantFactorIsDeclinedAndStaysAMul) {
  Graph g = gated(true);
  const auto d = PassManager::from_names({"fuse-se-gate"}).run(g);
  EXPECT_NE(find_node(g, "scale"), -1);
  EXPECT_EQ(g.nodes[std::size_t(find_node(g, "conv2"))].attr_string(fused_attr::kInScale, ""), "");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].outcome, DecisionOutcome::Declined);
  EXPECT_EQ(d[0].reason, "the factor gain is a constant, not a computed gate");
  for (const std::string& s : builtin_strategy_names())
    EXPECT_NO_THROW(compile(gated(true), testing::edge_like_hw(), builtin_strategy(s))) << s;
}

}  // namespace
}  // namespace npu::compiler
