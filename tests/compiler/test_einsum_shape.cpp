// Einsum's output shape from its equation (transforms/canonicalize/einsum_shape.hpp). ONNX's
// shape inference gave only the rank, so an Einsum of static inputs was costed as data-dependent:
// left out of the host cost, with a --dynamic-size hint that then costed 65,536 B for a 4,096 B
// output (new-user finding).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/frontend/model_loader.hpp"
#include "npu/compiler/transforms/canonicalize/einsum_shape.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "test_compile_graphs.hpp"
#include "test_onnx_util.hpp"

namespace npu::compiler {
namespace {

using Ints = std::vector<std::int64_t>;

TEST(EinsumShape, OutputSizesAndLoopSizeFromTheEquation) {
  // bhwc,cd->bhwd on [1,16,16,8] and [8,4]: [1,16,16,4]; loop b h w c d = 1x16x16x8x4 = 8,192.
  const auto e = einsum_shape("bhwc,cd->bhwd", {{1, 16, 16, 8}, {8, 4}});
  ASSERT_TRUE(e);
  EXPECT_EQ(e->output, (Ints{1, 16, 16, 4}));
  EXPECT_EQ(e->loop_size, 8192u);
  // Spaces are allowed; a batch index of size 1 broadcasts to the other operand's.
  const auto b = einsum_shape("i j , j k -> i k", {{2, 3}, {3, 5}});
  ASSERT_TRUE(b);
  EXPECT_EQ(b->output, (Ints{2, 5}));
  EXPECT_EQ(b->loop_size, 30u);
  EXPECT_EQ(einsum_shape("bij,bjk->bik", {{1, 2, 3}, {4, 3, 5}})->output, (Ints{4, 2, 5}));  // b: 1 broadcasts to 4
}

TEST(EinsumShape, NothingForWhatTheEquationDoesNotFix) {
  EXPECT_FALSE(einsum_shape("ij,jk", {{2, 3}, {3, 5}}));            // implicit output
  EXPECT_FALSE(einsum_shape("...ij,jk->...ik", {{2, 3}, {3, 5}}));  // ellipsis
  EXPECT_FALSE(einsum_shape("ij,jk->ik", {{2, 3}, {4, 5}}));        // j is 3 and 4
  EXPECT_FALSE(einsum_shape("ijk,jk->i", {{2, 3}, {3, 5}}));        // a term of rank 3 for a 2-D input
  EXPECT_FALSE(einsum_shape("ij->iz", {{2, 3}}));                   // z in no input
}

TEST(EinsumShape, AStaticEinsumOnTheHostIsCostedWithItsMacs) {
  // x [1,3,16,16] -> Conv(8, 3x3, pad 1) -> Transpose(0,2,3,1) -> Einsum(bhwc,cd->bhwd, w [8,4]):
  // the host Einsum does 16 x 16 x 8 x 4 = 8,192 MACs, and no size is unknown.
  npu::test::OnnxModel m(13);
  m.input("x", {1, 3, 16, 16});
  m.weight("w", {8, 3, 3, 3});
  npu::test::OnnxModel::attr_ints(m.node("Conv", "conv", {"x", "w"}, {"c"}), "pads", {1, 1, 1, 1});
  npu::test::OnnxModel::attr_ints(m.node("Transpose", "nhwc", {"c"}, {"t"}), "perm", {0, 2, 3, 1});
  m.weight("p", {8, 4});
  npu::test::OnnxModel::attr_s(m.node("Einsum", "head", {"t", "p"}, {"y"}), "equation", "bhwc,cd->bhwd");
  m.output("y");
  const Graph g = load_model_bytes(m.bytes(), "einsum.onnx");
  EXPECT_EQ(g.tensor("y").shape, (Ints{1, 16, 16, 4}));
  const CompileResult r = compile(g, testing::edge_like_hw(), builtin_strategy("none"));
  EXPECT_EQ(r.host_macs, 8192u);
  EXPECT_EQ(r.host_unsized, 0);
}

}  // namespace
}  // namespace npu::compiler
