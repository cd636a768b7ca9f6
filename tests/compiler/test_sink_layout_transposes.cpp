// sink-layout-transposes (transforms/canonicalize/sink_layout_transposes.cpp): NHWC converter
// exports (tf2onnx: Transpose -> Conv -> Transpose -> bias Add -> Relu -> Transpose -> Conv)
// fused nothing, with "no candidate in the graph" (new-user finding: 8 layers where 4 do).
// Each case checks the rewritten graph's ops, then that it computes what the original does
// (the reference interpreter on both), then the layer count under `residual`.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/reference/reference_interpreter.hpp"
#include "npu/compiler/transforms/pass_manager.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "test_compile_graphs.hpp"

namespace npu::compiler {
namespace {

using testing::GraphBuilder;

std::string transpose(GraphBuilder& b, const std::string& name, const std::string& x, std::vector<std::int64_t> perm) {
  const auto s = b.shape(x);
  const std::string out = name + ".out";
  b.add_tensor(out, {s[std::size_t(perm[0])], s[std::size_t(perm[1])], s[std::size_t(perm[2])], s[std::size_t(perm[3])]});
  b.node(name, "Transpose", {x}, {out}).attrs["perm"] = perm;
  return out;
}

std::vector<std::string> ops(const Graph& g) {
  std::vector<std::string> out;
  for (const Node& n : g.nodes) out.push_back(n.op_type);
  return out;
}

Graph sunk(const Graph& g) {
  Graph r = g;
  run_import_passes(r, {"infer-shapes", "sink-layout-transposes"}, "sink");
  return r;
}

/// Both graphs give the same outputs on one input of varied values (within fp32 rounding).
void expect_same_outputs(const Graph& a, const Graph& b) {
  RefTensorMap in;
  for (const std::string& x : a.inputs) {
    RefTensor t;
    t.shape = a.tensors.at(x).shape;
    for (std::int64_t i = 0; i < t.elements(); ++i) t.f.push_back(float(std::sin(0.37 * double(i))));
    in[x] = t;
  }
  const RefTensorMap ra = run_reference(a, in), rb = run_reference(b, in);
  for (const std::string& y : a.outputs) {
    const TensorDiff d = compare_tensors(rb.at(y), ra.at(y));
    EXPECT_LE(d.max_abs, 1e-5 * (1.0 + d.max_ref)) << y;
  }
}

TEST(SinkLayoutTransposes, Tf2onnxConvBiasReluBlocksFuse) {
  // x NHWC [1, 8, 8, 3] -> T(0,3,1,2) -> Conv(8) -> T(0,2,3,1) -> Add(bias [8]) -> Relu
  //   -> T(0,3,1,2) -> Conv(8) -> y (NCHW)
  GraphBuilder b("sink");
  const std::string x = b.input("x", {1, 8, 8, 3});
  const std::string c1 = b.conv("conv1", transpose(b, "t_in", x, {0, 3, 1, 2}), 8, 3, 1, 1);
  const std::string nhwc = transpose(b, "t_out", c1, {0, 2, 3, 1});
  const std::string biased = b.binary("bias", "Add", nhwc, b.constant("bias.B", {8}, -0.5f, 0.5f));
  const std::string act = b.unary("relu", "Relu", biased);
  b.output(b.conv("conv2", transpose(b, "t_back", act, {0, 3, 1, 2}), 8, 3, 1, 1));
  const Graph r = sunk(b.g);
  // The Add and Relu moved before t_out, which then met t_back and both went.
  EXPECT_EQ(ops(r), (std::vector<std::string>{"Transpose", "Conv", "Add", "Relu", "Conv"}));
  EXPECT_EQ(r.tensors.at(r.nodes[2].inputs[1]).shape, (std::vector<std::int64_t>{1, 8, 1, 1}));  // [C] -> [1,C,1,1]
  expect_same_outputs(b.g, r);
  // Under residual: the input's layout Transpose, Conv+bias+Relu, Conv = 3 layers (7 before).
  Graph g = b.g;
  run_import_passes(g, {"infer-shapes", "sink-layout-transposes", "recognise-affine"}, "sink");
  EXPECT_EQ(compile(g, testing::edge_like_hw(), builtin_strategy("residual")).lowered.layers.size(), 3u);
}

TEST(SinkLayoutTransposes, AResidualAddOfTwoNhwcTensorsAndAGlobalPool) {
  // Add(T(conv_a), T(conv_b)) -> Relu -> ReduceMean(axes 1,2, keepdims 0): Keras's residual
  // and GlobalAveragePooling2D as tf2onnx writes them. The Add and Relu run in NCHW, the
  // ReduceMean reads NCHW over axes 2,3 and no Transpose is left.
  GraphBuilder b("sink");
  const std::string x = b.input("x", {1, 4, 6, 6});
  const std::string a = transpose(b, "ta", b.conv("ca", x, 8, 3, 1, 1), {0, 2, 3, 1});
  const std::string c = transpose(b, "tc", b.conv("cc", x, 8, 1, 1, 0), {0, 2, 3, 1});
  const std::string sum = b.unary("relu", "Relu", b.binary("add", "Add", a, c));
  b.add_tensor("gap.out", {1, 8});
  Node& gap = b.node("gap", "ReduceMean", {sum}, {"gap.out"});
  gap.attrs["axes"] = std::vector<std::int64_t>{1, 2};
  gap.attrs["keepdims"] = std::int64_t{0};
  b.output("gap.out");
  const Graph r = sunk(b.g);
  EXPECT_EQ(ops(r), (std::vector<std::string>{"Conv", "Conv", "Add", "Relu", "ReduceMean"}));
  EXPECT_EQ(r.nodes[4].attr_ints("axes", {}), (std::vector<std::int64_t>{2, 3}));
  expect_same_outputs(b.g, r);
}

TEST(SinkLayoutTransposes, LeftWhereTheTransposeIsSharedReturnedOrNotALayoutPerm) {
  {  // the NHWC tensor is also a graph output: the model returns it
    GraphBuilder b("sink");
    const std::string t = transpose(b, "t", b.conv("c", b.input("x", {1, 4, 6, 6}), 8, 3, 1, 1), {0, 2, 3, 1});
    b.output(t);
    b.output(b.unary("relu", "Relu", t));
    EXPECT_EQ(ops(sunk(b.g)), (std::vector<std::string>{"Conv", "Transpose", "Relu"}));
  }
  {  // two readers of the NHWC tensor
    GraphBuilder b("sink");
    const std::string t = transpose(b, "t", b.conv("c", b.input("x", {1, 4, 6, 6}), 8, 3, 1, 1), {0, 2, 3, 1});
    b.output(b.unary("relu", "Relu", t));
    b.output(b.unary("sig", "Sigmoid", t));
    EXPECT_EQ(ops(sunk(b.g)), (std::vector<std::string>{"Conv", "Transpose", "Relu", "Sigmoid"}));
  }
  {  // attention's head Transpose (0,2,1,3) is not a layout perm: left to fuse-attention
    GraphBuilder b("sink");
    const std::string t = transpose(b, "t", b.input("x", {1, 4, 6, 8}), {0, 2, 1, 3});
    b.output(b.binary("scale", "Mul", t, b.scalar("s", 0.125f)));
    EXPECT_EQ(ops(sunk(b.g)), (std::vector<std::string>{"Transpose", "Mul"}));
  }
}

TEST(SinkLayoutTransposes, AGateOfBroadcastShapeFirstMovesAndRowSplitsOrChannelReducesStay) {
  {  // Mul(T(gate [1,C,1,1]) = [1,1,1,C], T(feature)): the feature's Transpose decides the shape
    GraphBuilder b("sink");
    const std::string x = b.input("x", {1, 4, 6, 6});
    const std::string feat = transpose(b, "tf", b.conv("cf", x, 8, 3, 1, 1), {0, 2, 3, 1});
    b.add_tensor("gap.out", {1, 8, 1, 1});
    b.node("gap", "GlobalAveragePool", {b.conv("cg", x, 8, 1, 1, 0)}, {"gap.out"});
    const std::string gate = transpose(b, "tg", b.unary("sig", "Sigmoid", "gap.out"), {0, 2, 3, 1});
    b.add_tensor("mul.out", {1, 6, 6, 8});
    b.node("mul", "Mul", {gate, feat}, {"mul.out"});
    b.output("mul.out");
    const Graph r = sunk(b.g);
    EXPECT_EQ(ops(r), (std::vector<std::string>{"Conv", "Conv", "GlobalAveragePool", "Sigmoid", "Mul", "Transpose"}));
    expect_same_outputs(b.g, r);
  }
  {  // an NHWC [6, 8] (W, C) constant would become [1, 8, 1, 6]: a row-split layer; left
    GraphBuilder b("sink");
    const std::string t = transpose(b, "t", b.conv("c", b.input("x", {1, 4, 6, 6}), 8, 3, 1, 1), {0, 2, 3, 1});
    b.output(b.binary("add", "Add", t, b.constant("wc", {6, 8}, -1.0f, 1.0f)));
    EXPECT_EQ(ops(sunk(b.g)), (std::vector<std::string>{"Conv", "Transpose", "Add"}));
  }
  {  // ReduceMean over the NHWC channel axis (-1): NCHW axis 1 is no trailing axis; left
    GraphBuilder b("sink");
    const std::string t = transpose(b, "t", b.conv("c", b.input("x", {1, 4, 6, 6}), 8, 3, 1, 1), {0, 2, 3, 1});
    b.add_tensor("rm.out", {1, 6, 6});
    Node& rm = b.node("rm", "ReduceMean", {t}, {"rm.out"});
    rm.attrs["axes"] = std::vector<std::int64_t>{-1};
    rm.attrs["keepdims"] = std::int64_t{0};
    b.output("rm.out");
    EXPECT_EQ(ops(sunk(b.g)), (std::vector<std::string>{"Conv", "Transpose", "ReduceMean"}));
  }
}

}  // namespace
}  // namespace npu::compiler
