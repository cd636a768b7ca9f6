// fuse-attention absorbs a query pre-scale: torch's nn.MultiheadAttention writes q / sqrt(d)
// before the QK MatMul, not a Div of the scores after it. (Q / c) K^T = (Q K^T) / c, so the Div
// joins the attention's scale and its scaled copy of Q is never written (new-user finding: on
// the TransformerEncoderLayer export it stayed an ELTWISE layer of its own). Values are checked
// against the reference interpreter on the unfused graph.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "attention_test_util.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "test_compile_graphs.hpp"

namespace {

using namespace npu;

// q [1, 2, 40, 16] -> (Div 4 | Mul 0.25) -> MatMul kt [1, 2, 16, 60] -> [Div post] -> Softmax ->
// MatMul v [1, 2, 60, 16] -> o. `q_also_out`: the scaled Q is a graph output too.
compiler::Graph prescaled_attention(const char* op, float c, float post, bool q_also_out) {
  compiler::testing::GraphBuilder b("attention");
  const std::string q = b.input("q", {1, 2, 40, 16});
  const std::string qs = b.binary("qscale", op, q, b.scalar("c", c));
  if (q_also_out) b.output(qs);
  b.input("kt", {1, 2, 16, 60});
  const std::string v = b.input("v", {1, 2, 60, 16});
  b.add_tensor("scores", {1, 2, 40, 60});
  b.node("qk", "MatMul", {qs, "kt"}, {"scores"});
  std::string x = "scores";
  if (post != 1.0f) x = b.binary("scale", "Div", x, b.scalar("post", post));
  const std::string p = b.unary("softmax", "Softmax", x);
  b.g.nodes.back().attrs["axis"] = std::int64_t(-1);
  b.add_tensor("o", {1, 2, 40, 16});
  b.node("pv", "MatMul", {p, v}, {"o"});
  b.output("o");
  return b.g;
}

TEST(AttentionQueryScale, ADivOrMulOfTheQueryJoinsTheScaleAndIsNeverWritten) {
  for (const char* op : {"Div", "Mul"}) {
    SCOPED_TRACE(op);
    const compiler::Graph g = prescaled_attention(op, std::string(op) == "Div" ? 4.0f : 0.25f, 1.0f, false);
    const compiler::CompileResult c =
        compiler::compile(g, test::fp32_hw(1u << 20), compiler::builtin_strategy("transformer"));
    EXPECT_EQ(c.lowered.layers.size(), 1u);  // the Div was a layer of its own
    EXPECT_EQ(test::attention_layers(c), 1u);
    EXPECT_NE(test::attention_reason(c, false).find("the query pre-scale qscale joins the attention's scale"),
              std::string::npos)
        << test::attention_reason(c, false);
    EXPECT_LE(test::attention_error(g, "transformer", 1u << 20), 1e-5);
  }
}

TEST(AttentionQueryScale, APreScaleAndAPostScaleMultiply) {
  // q x 0.5, scores / 2: softmax(0.25 Q K^T) V.
  const compiler::Graph g = prescaled_attention("Mul", 0.5f, 2.0f, false);
  const compiler::CompileResult c = compiler::compile(g, test::fp32_hw(1u << 20), compiler::builtin_strategy("transformer"));
  EXPECT_EQ(c.lowered.layers.size(), 1u);
  EXPECT_LE(test::attention_error(g, "transformer", 1u << 20), 1e-5);
}

TEST(AttentionQueryScale, AScaledQueryThatIsAlsoAGraphOutputStaysALayer) {
  // The scaled Q must be written for its other reader: the Div stays, the attention reads it.
  const compiler::Graph g = prescaled_attention("Div", 4.0f, 1.0f, true);
  const compiler::CompileResult c = compiler::compile(g, test::fp32_hw(1u << 20), compiler::builtin_strategy("transformer"));
  EXPECT_EQ(c.lowered.layers.size(), 2u);
  EXPECT_EQ(test::attention_layers(c), 1u);
  EXPECT_EQ(test::attention_reason(c, false).find("pre-scale"), std::string::npos) << test::attention_reason(c, false);
  EXPECT_LE(test::attention_error(g, "transformer", 1u << 20), 1e-5);
}

}  // namespace
