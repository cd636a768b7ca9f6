// share_grids (compiler/quantize/shared_grids.hpp): max/average pools, views and Concat keep one int8 grid
// across their inputs and output, so PTQ gives each such group the union of its ranges.
#include <gtest/gtest.h>

#include "npu/compiler/quantize/ptq.hpp"
#include "npu/compiler/quantize/shared_grids.hpp"

namespace npu::compiler {
namespace {

Node node(const std::string& op, std::vector<std::string> in, std::string out) {
  Node n;
  n.name = op + "_" + out;
  n.op_type = op;
  n.inputs = std::move(in);
  n.outputs = {std::move(out)};
  return n;
}

TEST(SharedGrids, SppfStyleConcatOfPooledCopiesIsOneGroup) {
  // x -> MaxPool -> p1 -> MaxPool -> p2; Concat(x, p1, p2) -> c; Conv(c) -> y (its own grid).
  // x [-1, 2], p1 [0, 2], p2 [0.5, 2], c [-1, 2]: union [-1, 2] for x, p1, p2, c; y untouched.
  Graph g;
  g.nodes = {node("MaxPool", {"x"}, "p1"), node("MaxPool", {"p1"}, "p2"), node("Concat", {"x", "p1", "p2"}, "c"),
             node("Conv", {"c", "w"}, "y")};
  std::map<std::string, TensorRange> r = {
      {"x", {-1, 2}}, {"p1", {0, 2}}, {"p2", {0.5f, 2}}, {"c", {-1, 2}}, {"y", {-7, 9}}};
  EXPECT_EQ(share_grids(g, r), 1);
  for (const char* t : {"x", "p1", "p2", "c"}) {
    EXPECT_EQ(r[t].lo, -1.0f) << t;
    EXPECT_EQ(r[t].hi, 2.0f) << t;
  }
  EXPECT_EQ(r["y"].lo, -7.0f);
  EXPECT_EQ(r["y"].hi, 9.0f);
  // One grid, so one set of parameters: activation_params of [-1, 2] is scale 3/255, zero point
  // round(-128 + 1 / (3/255)) = round(-128 + 85) = -43 for every member.
  for (const char* t : {"x", "p1", "c"}) {
    const QuantParams q = activation_params(r[t]);
    EXPECT_FLOAT_EQ(q.scale[0], 3.0f / 255.0f);
    EXPECT_EQ(q.zero_point[0], -43);
  }
}

TEST(SharedGrids, ConcatOfUnrelatedBranchesTakesTheUnionAndViewsFollow) {
  // Concat(a [-1, 1], b [0, 3]) -> c [-1, 3] -> Flatten -> f [-1, 3]; AveragePool(d) -> e
  // (a second group: d [-4, 4], e [-0.5, 0.5] -> both [-4, 4]); Relu(z) -> r is not linked;
  // GlobalAveragePool(h) -> k is not linked either: its int8 rule requantises onto an output
  // grid of its own (TFLite's MEAN), so k keeps the narrower range of an average.
  Graph g;
  g.nodes = {node("Concat", {"a", "b"}, "c"), node("Flatten", {"c"}, "f"), node("AveragePool", {"d"}, "e"),
             node("Relu", {"z"}, "rz"), node("GlobalAveragePool", {"h"}, "k")};
  std::map<std::string, TensorRange> r = {{"a", {-1, 1}}, {"b", {0, 3}},        {"c", {-1, 3}}, {"f", {-1, 3}},
                                          {"d", {-4, 4}}, {"e", {-0.5f, 0.5f}}, {"z", {-2, 2}}, {"rz", {0, 2}},
                                          {"h", {-6, 6}}, {"k", {-0.25f, 0.75f}}};
  EXPECT_EQ(share_grids(g, r), 2);
  for (const char* t : {"a", "b", "c", "f"}) {
    EXPECT_EQ(r[t].lo, -1.0f) << t;
    EXPECT_EQ(r[t].hi, 3.0f) << t;
  }
  EXPECT_EQ(r["e"].lo, -4.0f);
  EXPECT_EQ(r["e"].hi, 4.0f);
  EXPECT_EQ(r["z"].lo, -2.0f);
  EXPECT_EQ(r["rz"].lo, 0.0f);
  EXPECT_EQ(r["k"].lo, -0.25f);
  EXPECT_EQ(r["k"].hi, 0.75f);
  EXPECT_EQ(r["h"].lo, -6.0f);
}

TEST(SharedGrids, NarrowConcatInputGetsARequantisingCopyAndItsSplitKeepsItsGrid) {
  // A YOLO head in miniature: sigmoid s [0, 1] -> Split -> xy, conf (both [0, 1], one grid with
  // s); xy -> Mul -> box [0, 640]; Concat(box, conf) -> out [0, 640]. conf is 640x narrower than
  // out (> kConcatRequantRatio = 8): it gets a copy conf:requant:cat on out's grid, so s, xy and
  // conf keep [0, 1]; box (640 / 640 = 1x) joins out's grid directly.
  Graph g;
  Node split;
  split.name = "split";
  split.op_type = "Split";
  split.inputs = {"s"};
  split.outputs = {"xy", "conf"};
  Node cat = node("Concat", {"box", "conf"}, "out");
  cat.name = "cat";
  g.nodes = {split, node("Mul", {"xy", "k"}, "box"), cat};
  for (const char* t : {"s", "xy", "conf", "box", "out"}) g.tensors[t].name = t;
  std::map<std::string, TensorRange> r = {
      {"s", {0, 1}}, {"xy", {0, 1}}, {"conf", {0, 1}}, {"box", {0, 640}}, {"out", {0, 640}}};
  const std::vector<std::string> added = insert_concat_requant(g, r);
  ASSERT_EQ(added, (std::vector<std::string>{"conf:requant:cat"}));
  ASSERT_EQ(g.nodes.size(), 4u);
  EXPECT_EQ(g.nodes[2].op_type, "Clip");  // just before the Concat, no bounds
  EXPECT_EQ(g.nodes[2].inputs, (std::vector<std::string>{"conf"}));
  EXPECT_EQ(g.nodes[3].inputs, (std::vector<std::string>{"box", "conf:requant:cat"}));
  share_grids(g, r);
  for (const char* t : {"s", "xy", "conf"}) EXPECT_EQ(r[t].hi, 1.0f) << t;
  for (const char* t : {"box", "conf:requant:cat", "out"}) EXPECT_EQ(r[t].hi, 640.0f) << t;
  // 8x narrower is not narrow enough: [0, 80] beside [0, 640] shares the grid.
  Graph h;
  h.nodes = {node("Concat", {"a", "b"}, "c")};
  std::map<std::string, TensorRange> q = {{"a", {0, 80}}, {"b", {0, 640}}, {"c", {0, 640}}};
  EXPECT_TRUE(insert_concat_requant(h, q).empty());
}

}  // namespace
}  // namespace npu::compiler
