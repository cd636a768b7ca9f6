// node_macs on shapes known only at run time (Faster R-CNN's box head without --dynamic-size:
// its Gemm read a rank-1 shape and `npu compile` stopped with "internal error:
// vector::_M_range_check"). Such a node counts 0 MACs (not costed, as the run warns); known
// shapes count as before.
#include <gtest/gtest.h>

#include "npu/compiler/ir/graph_stats.hpp"
#include "test_compile_graphs.hpp"

namespace npu::compiler {
namespace {

using testing::GraphBuilder;

TEST(GraphStatsUnknownShapes, GemmMatMulConvWithRunTimeDimsCountZero) {
  GraphBuilder b;
  b.add_tensor("a1", {-1});  // rank 1, unknown: what the detection head's Gemm read
  b.add_tensor("a2", {-1, 1024});
  b.add_tensor("w", {1024, 16}, true);
  b.add_tensor("y1", {-1});
  b.add_tensor("y2", {-1, 16});
  // (each node checked as it is added: the builder's vector may move the earlier ones)
  EXPECT_EQ(node_macs(b.g, b.node("g1", "Gemm", {"a1", "w"}, {"y1"})), 0);
  EXPECT_EQ(node_macs(b.g, b.node("g2", "Gemm", {"a2", "w"}, {"y2"})), 0);
  b.add_tensor("m0", {});
  b.add_tensor("my", {-1, 16});
  EXPECT_EQ(node_macs(b.g, b.node("mm", "MatMul", {"m0", "w"}, {"my"})), 0);  // was a.back() on an empty shape
  b.add_tensor("cx", {-1, 3, 8, 8});
  b.add_tensor("cw", {4, 3, 3, 3}, true);
  b.add_tensor("cy", {-1, 4, 8, 8});
  EXPECT_EQ(node_macs(b.g, b.node("c", "Conv", {"cx", "cw"}, {"cy"})), 0);  // was -256 x 27
}

TEST(GraphStatsUnknownShapes, KnownShapesCountAsBefore) {
  GraphBuilder b;
  // Gemm [2,3] x [3,4]: M N K = 2 x 4 x 3 = 24. Conv 3 -> 4, 3x3 on an 8x8 output: 256 x 27 = 6912.
  b.add_tensor("a", {2, 3});
  b.add_tensor("w", {3, 4}, true);
  b.add_tensor("y", {2, 4});
  EXPECT_EQ(node_macs(b.g, b.node("g", "Gemm", {"a", "w"}, {"y"})), 24);
  b.add_tensor("cx", {1, 3, 8, 8});
  b.add_tensor("cw", {4, 3, 3, 3}, true);
  b.add_tensor("cy", {1, 4, 8, 8});
  EXPECT_EQ(node_macs(b.g, b.node("c", "Conv", {"cx", "cw"}, {"cy"})), 6912);
}

}  // namespace
}  // namespace npu::compiler
