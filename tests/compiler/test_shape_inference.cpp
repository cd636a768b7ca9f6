// Static shape inference (shape_inference.hpp): each rule against sizes worked out by hand
// from the ONNX operator spec, the canonical attributes it writes, its errors, and the
// host-placement rule.
#include <gtest/gtest.h>

#include "npu/compiler/transforms/canonicalize/shape_inference.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace npu::compiler {
namespace {

using Ints = std::vector<std::int64_t>;

Tensor make_tensor(const std::string& name, Ints shape, ElemType type = ElemType::Float32,
                   bool constant = false) {
  Tensor t;
  t.name = name;
  t.shape = std::move(shape);
  t.type = type;
  t.is_constant = constant;
  return t;
}

/// A graph under construction: inputs, weights (constants) and nodes with one output each.
struct G {
  Graph g;
  G() { g.name = "t"; }
  G& in(const std::string& name, Ints shape) {
    g.inputs.push_back(name);
    g.tensors[name] = make_tensor(name, std::move(shape));
    return *this;
  }
  G& w(const std::string& name, Ints shape) {
    g.tensors[name] = make_tensor(name, std::move(shape), ElemType::Float32, true);
    return *this;
  }
  G& ints(const std::string& name, Ints values) {
    Tensor t = make_tensor(name, {static_cast<std::int64_t>(values.size())}, ElemType::Int64, true);
    t.int_data = std::move(values);
    g.tensors[name] = t;
    return *this;
  }
  Node& node(const std::string& op, std::vector<std::string> inputs, std::string out = "y",
             std::map<std::string, AttrValue> attrs = {}) {
    Node n;
    n.name = op + "_" + std::to_string(g.nodes.size());
    n.op_type = op;
    n.inputs = std::move(inputs);
    n.outputs = {std::move(out)};
    n.attrs = std::move(attrs);
    g.nodes.push_back(n);
    return g.nodes.back();
  }
  const Ints& infer(const std::string& out = "y") {
    infer_shapes(g, "test.onnx");
    return g.tensor(out).shape;
  }
};

std::string error_of(G& t) {
  try {
    infer_shapes(t.g, "test.onnx");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

// ---- Conv ------------------------------------------------------------------------------

TEST(ShapeInference, ConvStridedWithPads) {
  // ResNet conv1: floor((224 + 3 + 3 - 7) / 2) + 1 = 111 + 1 = 112.
  G t;
  t.in("x", {1, 3, 224, 224}).w("w", {64, 3, 7, 7});
  t.node("Conv", {"x", "w"}, "y", {{"strides", Ints{2, 2}}, {"pads", Ints{3, 3, 3, 3}}});
  EXPECT_EQ(t.infer(), (Ints{1, 64, 112, 112}));
  const Node& n = t.g.nodes[0];  // defaults written out explicitly
  EXPECT_EQ(n.attr_ints("kernel_shape"), (Ints{7, 7}));
  EXPECT_EQ(n.attr_ints("dilations"), (Ints{1, 1}));
  EXPECT_EQ(n.attr_int("group", 0), 1);
}

TEST(ShapeInference, ConvDilatedAndDepthwise) {
  // Dilation 2, k 3: effective kernel 5; (32 + 2 + 2 - 5) / 1 + 1 = 32.
  G t;
  t.in("x", {1, 8, 32, 32}).w("w", {16, 8, 3, 3});
  t.node("Conv", {"x", "w"}, "y", {{"dilations", Ints{2, 2}}, {"pads", Ints{2, 2, 2, 2}}});
  EXPECT_EQ(t.infer(), (Ints{1, 16, 32, 32}));
  // Depthwise (group = C = 32, W [32, 1, 3, 3]), stride 2, pad 1: (56 + 2 - 3) / 2 + 1 = 28.
  G d;
  d.in("x", {1, 32, 56, 56}).w("w", {32, 1, 3, 3});
  d.node("Conv", {"x", "w"}, "y", {{"group", std::int64_t{32}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}});
  EXPECT_EQ(d.infer(), (Ints{1, 32, 28, 28}));
}

TEST(ShapeInference, ConvAutoPadSameUpperLowerAndValid) {
  // SAME: out = ceil(8 / 2) = 4; total pad = (4 - 1) * 2 + 3 - 8 = 1, the odd one at the end
  // (SAME_UPPER) or at the beginning (SAME_LOWER).
  for (const char* mode : {"SAME_UPPER", "SAME_LOWER"}) {
    G t;
    t.in("x", {1, 1, 8, 8}).w("w", {1, 1, 3, 3});
    t.node("Conv", {"x", "w"}, "y", {{"strides", Ints{2, 2}}, {"auto_pad", std::string(mode)}});
    EXPECT_EQ(t.infer(), (Ints{1, 1, 4, 4})) << mode;
    const Ints expected_pads = std::string(mode) == "SAME_UPPER" ? Ints{0, 0, 1, 1} : Ints{1, 1, 0, 0};
    EXPECT_EQ(t.g.nodes[0].attr_ints("pads"), expected_pads) << mode;
    EXPECT_FALSE(t.g.nodes[0].has_attr("auto_pad"));  // resolved into explicit pads
  }
  // ONNX test_conv_with_autopad_same: 5x5, k 3, s 2, SAME_LOWER -> 3x3 with pads 1,1.
  G s;
  s.in("x", {1, 1, 5, 5}).w("w", {1, 1, 3, 3});
  s.node("Conv", {"x", "w"}, "y", {{"strides", Ints{2, 2}}, {"auto_pad", std::string("SAME_LOWER")}});
  EXPECT_EQ(s.infer(), (Ints{1, 1, 3, 3}));
  EXPECT_EQ(s.g.nodes[0].attr_ints("pads"), (Ints{1, 1, 1, 1}));
  // VALID: (5 - 3) / 2 + 1 = 2.
  G v;
  v.in("x", {1, 1, 5, 5}).w("w", {1, 1, 3, 3});
  v.node("Conv", {"x", "w"}, "y", {{"strides", Ints{2, 2}}, {"auto_pad", std::string("VALID")}});
  EXPECT_EQ(v.infer(), (Ints{1, 1, 2, 2}));
}

TEST(ShapeInference, ConvChannelMismatchNamesNodeAndShapes) {
  G t;
  t.in("x", {1, 3, 32, 32}).w("w", {16, 4, 3, 3});
  t.node("Conv", {"x", "w"});
  const std::string msg = error_of(t);
  EXPECT_NE(msg.find("test.onnx: error: node #0 'Conv_0' (Conv)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("input channels 3"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[16,4,3,3]"), std::string::npos) << msg;
}

// A Split part of size 0 is valid ONNX (an empty tensor); npu-sim does not simulate empty
// tensors and says so, with the fix, instead of calling the export inconsistent.
TEST(ShapeInference, EmptySplitOutputIsRefusedAsEmptyNotInconsistent) {
  G t;
  t.in("x", {1, 8, 5, 6}).ints("sizes", {4, 0, 4});
  Node& n = t.node("Split", {"x", "sizes"}, "a", {{"axis", std::int64_t(1)}});
  n.outputs = {"a", "b", "c"};
  const std::string msg = error_of(t);
  EXPECT_NE(msg.find("test.onnx: error: node #0 'Split_0' (Split): output 'b' would have shape [1,0,5,6] with a "
                     "zero-size dimension (an empty tensor); npu-sim does not simulate empty tensors"),
            std::string::npos)
      << msg;
  EXPECT_EQ(msg.find("inconsistent"), std::string::npos) << msg;
}

TEST(ShapeInference, ConvWindowLargerThanInputIsAnError) {
  G t;
  t.in("x", {1, 1, 2, 2}).w("w", {1, 1, 5, 5});
  t.node("Conv", {"x", "w"});
  EXPECT_NE(error_of(t).find("does not fit"), std::string::npos);
}

// ---- pooling ---------------------------------------------------------------------------

TEST(ShapeInference, MaxPoolFloorAndCeilMode) {
  // ResNet maxpool: (112 + 1 + 1 - 3) / 2 + 1 = 56.
  G r;
  r.in("x", {1, 64, 112, 112});
  r.node("MaxPool", {"x"}, "y", {{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}});
  EXPECT_EQ(r.infer(), (Ints{1, 64, 56, 56}));
  // ONNX test_maxpool_2d_ceil: 4x4, k 3, s 2: floor gives (4-3)/2+1 = 1, ceil gives 2.
  G c;
  c.in("x", {1, 1, 4, 4});
  c.node("MaxPool", {"x"}, "y", {{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"ceil_mode", std::int64_t{1}}});
  EXPECT_EQ(c.infer(), (Ints{1, 1, 2, 2}));
  // PyTorch rule: 5 wide, k 2, s 2, pad 1, ceil: ceil((5+2-2)/2)+1 = 4, but window 4 would
  // start at (4-1)*2 = 6 >= 5 + 1 (entirely in the end padding), so 3.
  EXPECT_EQ(window_output_size(5, 2, 2, 1, 1, 1, true), 3);
  EXPECT_EQ(window_output_size(5, 2, 2, 1, 1, 1, false), 3);
  EXPECT_EQ(window_output_size(112, 3, 2, 1, 0, 0, true), 56);   // ceil(109/2)+1
  EXPECT_EQ(window_output_size(112, 3, 2, 1, 0, 0, false), 55);  // floor(109/2)+1
}

TEST(ShapeInference, AveragePoolAndGlobalAveragePool) {
  G t;
  t.in("x", {1, 2048, 7, 7});
  t.node("AveragePool", {"x"}, "a", {{"kernel_shape", Ints{7, 7}}});
  t.node("GlobalAveragePool", {"x"}, "g");
  infer_shapes(t.g, "t");
  EXPECT_EQ(t.g.tensor("a").shape, (Ints{1, 2048, 1, 1}));  // (7 - 7) / 1 + 1
  EXPECT_EQ(t.g.tensor("g").shape, (Ints{1, 2048, 1, 1}));
}

TEST(ShapeInference, PoolWithoutKernelShapeIsAnError) {
  G t;
  t.in("x", {1, 1, 4, 4});
  t.node("MaxPool", {"x"});
  EXPECT_NE(error_of(t).find("missing kernel_shape"), std::string::npos);
}

// ---- elementwise, BN -------------------------------------------------------------------

TEST(ShapeInference, NumpyBroadcasting) {
  EXPECT_EQ(*broadcast_shapes({2, 1, 4}, {3, 1}), (Ints{2, 3, 4}));
  EXPECT_EQ(*broadcast_shapes({1, 64, 56, 56}, {64, 1, 1}), (Ints{1, 64, 56, 56}));
  EXPECT_EQ(*broadcast_shapes({1, 3, 80, 80, 2}, {}), (Ints{1, 3, 80, 80, 2}));  // scalar
  EXPECT_FALSE(broadcast_shapes({3, 4}, {5}).has_value());
  G t;
  t.in("a", {1, 3, 80, 80, 2}).w("b", {1, 3, 80, 80, 2}).w("two", {});
  t.node("Mul", {"a", "two"}, "m");
  t.node("Add", {"m", "b"}, "s");
  t.node("Pow", {"s", "two"}, "p");
  infer_shapes(t.g, "t");
  EXPECT_EQ(t.g.tensor("p").shape, (Ints{1, 3, 80, 80, 2}));
  G bad;
  bad.in("a", {1, 8, 4, 4}).w("b", {3, 1, 1});
  bad.node("Add", {"a", "b"});
  EXPECT_NE(error_of(bad).find("cannot be broadcast"), std::string::npos);
}

TEST(ShapeInference, UnaryOpsKeepTheShape) {
  for (const char* op : {"Relu", "Clip", "LeakyRelu", "Sigmoid", "HardSigmoid", "HardSwish", "Identity"}) {
    G t;
    t.in("x", {1, 16, 8, 8});
    t.node(op, {"x"});
    EXPECT_EQ(t.infer(), (Ints{1, 16, 8, 8})) << op;
  }
  G s;
  s.in("x", {1, 1000});
  s.node("Softmax", {"x"});
  EXPECT_EQ(s.infer(), (Ints{1, 1000}));
  EXPECT_EQ(s.g.nodes[0].attr_int("axis", -9), 1);  // default -1 made non-negative
}

TEST(ShapeInference, BatchNormChecksEveryStatisticAgainstChannels) {
  G t;
  t.in("x", {1, 64, 8, 8}).w("s", {64}).w("b", {64}).w("m", {64}).w("v", {32});
  t.node("BatchNormalization", {"x", "s", "b", "m", "v"});
  const std::string msg = error_of(t);
  EXPECT_NE(msg.find("input var 'v' has shape [32], expected [64]"), std::string::npos) << msg;
  t.g.tensors["v"].shape = {64};
  EXPECT_EQ(t.infer(), (Ints{1, 64, 8, 8}));
}

// ---- data movement ---------------------------------------------------------------------

TEST(ShapeInference, ConcatNegativeAxisAndMismatch) {
  G t;
  t.in("a", {1, 64, 20, 20}).in("b", {1, 128, 20, 20});
  t.node("Concat", {"a", "b"}, "y", {{"axis", std::int64_t{-3}}});
  EXPECT_EQ(t.infer(), (Ints{1, 192, 20, 20}));
  EXPECT_EQ(t.g.nodes[0].attr_int("axis", -9), 1);
  G bad;
  bad.in("a", {1, 64, 20, 20}).in("b", {1, 64, 40, 40});
  bad.node("Concat", {"a", "b"}, "y", {{"axis", std::int64_t{1}}});
  EXPECT_NE(error_of(bad).find("outside the concat axis 1"), std::string::npos);
}

TEST(ShapeInference, GemmAndMatMul) {
  G t;
  t.in("x", {1, 2048}).w("w", {1000, 2048}).w("b", {1000});
  t.node("Gemm", {"x", "w", "b"}, "y", {{"transB", std::int64_t{1}}});
  EXPECT_EQ(t.infer(), (Ints{1, 1000}));
  EXPECT_FLOAT_EQ(t.g.nodes[0].attr_float("alpha", 0), 1.0f);
  G bad;
  bad.in("x", {1, 2048}).w("w", {1000, 1024});
  bad.node("Gemm", {"x", "w"}, "y", {{"transB", std::int64_t{1}}});
  EXPECT_NE(error_of(bad).find("inner dimensions differ"), std::string::npos);
  // MatMul: batch dims [2,1] and [5] broadcast to [2,5]; [3,4] x [4,6] -> [3,6].
  G m;
  m.in("a", {2, 1, 3, 4}).in("b", {5, 4, 6});
  m.node("MatMul", {"a", "b"});
  EXPECT_EQ(m.infer(), (Ints{2, 5, 3, 6}));
  G v;  // a 1-D first operand is a row vector whose dimension is dropped: [4] x [4,6] -> [6]
  v.in("a", {4}).in("b", {4, 6});
  v.node("MatMul", {"a", "b"});
  EXPECT_EQ(v.infer(), (Ints{6}));
}

TEST(ShapeInference, FlattenAndReshape) {
  G f;
  f.in("x", {2, 3, 4});
  f.node("Flatten", {"x"}, "a", {{"axis", std::int64_t{-1}}});  // [2*3, 4]
  f.node("Flatten", {"x"}, "b", {{"axis", std::int64_t{0}}});   // [1, 24]
  f.node("Flatten", {"x"}, "c");                                // default axis 1: [2, 12]
  infer_shapes(f.g, "t");
  EXPECT_EQ(f.g.tensor("a").shape, (Ints{6, 4}));
  EXPECT_EQ(f.g.tensor("b").shape, (Ints{1, 24}));
  EXPECT_EQ(f.g.tensor("c").shape, (Ints{2, 12}));
  G r;  // 0 copies the input dimension, -1 takes the rest: [2, 3*4]
  r.in("x", {2, 3, 4}).ints("s", {0, -1});
  r.node("Reshape", {"x", "s"});
  EXPECT_EQ(r.infer(), (Ints{2, 12}));
  G y;  // the YOLO Detect view: 255 = 3 * 85
  y.in("x", {1, 255, 80, 80}).ints("s", {1, 3, 85, 80, 80});
  y.node("Reshape", {"x", "s"});
  EXPECT_EQ(y.infer(), (Ints{1, 3, 85, 80, 80}));
  G bad;
  bad.in("x", {2, 3, 4}).ints("s", {5, -1});
  bad.node("Reshape", {"x", "s"});
  EXPECT_NE(error_of(bad).find("not divisible by 5"), std::string::npos);
  G two;
  two.in("x", {2, 3, 4}).ints("s", {-1, -1});
  two.node("Reshape", {"x", "s"});
  EXPECT_NE(error_of(two).find("more than one -1"), std::string::npos);
  G count;
  count.in("x", {2, 3, 4}).ints("s", {5, 5});
  count.node("Reshape", {"x", "s"});
  EXPECT_NE(error_of(count).find("has 24 elements"), std::string::npos);
}

TEST(ShapeInference, ResizeScalesOrSizes) {
  G t;
  t.in("x", {1, 256, 20, 20});
  t.node("Resize", {"x"}, "y", {{"scales", std::vector<float>{1, 1, 2, 2}}});
  EXPECT_EQ(t.infer(), (Ints{1, 256, 40, 40}));
  G d;  // floor(7 * 0.5) = 3
  d.in("x", {1, 1, 7, 7});
  d.node("Resize", {"x"}, "y", {{"scales", std::vector<float>{1, 1, 0.5f, 0.5f}}});
  EXPECT_EQ(d.infer(), (Ints{1, 1, 3, 3}));
  G s;
  s.in("x", {1, 1, 7, 7});
  s.node("Resize", {"x"}, "y", {{"sizes", Ints{1, 1, 9, 10}}});
  EXPECT_EQ(s.infer(), (Ints{1, 1, 9, 10}));
}

TEST(ShapeInference, SplitTransposeAndTheirCanonicalAttributes) {
  G t;
  t.in("x", {1, 3, 80, 80, 85});
  Node& n = t.node("Split", {"x"}, "a", {{"axis", std::int64_t{-1}}, {"split", Ints{2, 2, 81}}});
  n.outputs = {"a", "b", "c"};
  infer_shapes(t.g, "t");
  EXPECT_EQ(t.g.tensor("c").shape, (Ints{1, 3, 80, 80, 81}));
  EXPECT_EQ(t.g.nodes[0].attr_int("axis", -9), 4);
  G e;  // no sizes: equal parts, 6 / 3 = 2
  e.in("x", {6, 5});
  e.node("Split", {"x"}).outputs = {"a", "b", "c"};
  infer_shapes(e.g, "t");
  EXPECT_EQ(e.g.tensor("b").shape, (Ints{2, 5}));
  EXPECT_EQ(e.g.nodes[0].attr_ints("split"), (Ints{2, 2, 2}));
  G bad;
  bad.in("x", {6, 5});
  bad.node("Split", {"x"}, "a", {{"split", Ints{2, 2}}}).outputs = {"a", "b"};
  EXPECT_NE(error_of(bad).find("sum to 4"), std::string::npos);
  G p;
  p.in("x", {1, 3, 85, 80, 80});
  p.node("Transpose", {"x"}, "y", {{"perm", Ints{0, 1, 3, 4, 2}}});
  EXPECT_EQ(p.infer(), (Ints{1, 3, 80, 80, 85}));
  G r;  // default perm reverses the axes
  r.in("x", {2, 3, 4});
  r.node("Transpose", {"x"});
  EXPECT_EQ(r.infer(), (Ints{4, 3, 2}));
  EXPECT_EQ(r.g.nodes[0].attr_ints("perm"), (Ints{2, 1, 0}));
}

// ---- graph-level checks ----------------------------------------------------------------

TEST(ShapeInference, DynamicGraphInputSaysHowToFixIt) {
  G t;
  t.in("images", {-1, 3, 224, 224});
  t.node("Relu", {"images"});
  const std::string msg = error_of(t);
  EXPECT_NE(msg.find("test.onnx: error: graph input 'images' has shape [?,3,224,224]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--input-shape images="), std::string::npos) << msg;
}

TEST(ShapeInference, UndefinedInputIsReported) {
  G t;
  t.in("x", {1, 4});
  t.node("Add", {"x", "ghost"});
  EXPECT_NE(error_of(t).find("input 'ghost' is not a graph input"), std::string::npos);
}

TEST(ShapeInference, UnknownOpFailsUnlessItsOutputsAreKnown) {
  G t;
  t.in("x", {1, 4});
  t.node("NonMaxSuppression", {"x"});
  t.g.tensors["y"] = make_tensor("y", {-1});
  const std::string msg = error_of(t);
  EXPECT_NE(msg.find("'NonMaxSuppression_0' (NonMaxSuppression): op type 'NonMaxSuppression' is not supported"),
            std::string::npos) << msg;
  EXPECT_NE(msg.find("supported: Add, AveragePool"), std::string::npos) << msg;
  // A pass may create a fused op whose output shape it sets itself: inference keeps it.
  t.g.tensors["y"].shape = {1, 4};
  EXPECT_EQ(t.infer(), (Ints{1, 4}));
}

TEST(ShapeInference, IsIdempotent) {
  G t;
  t.in("x", {1, 1, 8, 8}).w("w", {1, 1, 3, 3});
  t.node("Conv", {"x", "w"}, "y", {{"strides", Ints{2, 2}}, {"auto_pad", std::string("SAME_UPPER")}});
  infer_shapes(t.g, "t");
  const auto attrs = t.g.nodes[0].attrs;
  infer_shapes(t.g, "t");
  EXPECT_EQ(t.g.nodes[0].attrs, attrs);
  EXPECT_EQ(t.g.tensor("y").shape, (Ints{1, 1, 4, 4}));
}

TEST(ShapeInference, SupportTable) {
  EXPECT_EQ(supported_ops().size(), 24u);  // the 24 ops listed in shape_inference.hpp
  for (const char* op : {"Conv", "BatchNormalization", "Resize", "Softmax", "Pow"})
    EXPECT_TRUE(is_supported_op(op)) << op;
  EXPECT_FALSE(is_supported_op("NonMaxSuppression"));  // no hand rule: ONNX's inference
  EXPECT_FALSE(is_host_only_op("Transpose"));  // no op is host-only by name any more
  EXPECT_FALSE(is_host_only_op("Conv"));
}

// ---- host placement --------------------------------------------------------------------

TEST(HostPlacement, UnloweredOpGoesToTheHostAndTheNpuResumes) {
  G t;
  t.in("x", {1, 16, 8, 8}).w("w", {255, 16, 1, 1}).ints("s", {1, 3, 85, 8, 8});
  t.node("Conv", {"x", "w"}, "c");
  t.node("Reshape", {"c", "s"}, "r");  // rule 3: layout-only, only consumer on the host
  t.node("LpNormalization", {"r"}, "p");  // no NPU lowering: host
  t.g.tensors["p"].name = "p";  // built in code: its shape is given
  t.g.tensors["p"].shape = {1, 3, 85, 8, 8};
  t.node("Sigmoid", {"p"}, "y");  // reads a host result: the NPU resumes
  t.w("fw", {10, 1024});
  t.node("Flatten", {"x"}, "f");  // feeds an NPU Gemm: stays
  t.node("Gemm", {"f", "fw"}, "g", {{"transB", std::int64_t{1}}});
  infer_shapes(t.g, "t");
  place_host_ops(t.g);
  const auto& n = t.g.nodes;
  EXPECT_FALSE(n[0].on_host);
  EXPECT_TRUE(n[1].on_host);
  EXPECT_EQ(n[1].host_reason, "layout-only Reshape feeding only host nodes");
  EXPECT_TRUE(n[2].on_host);
  EXPECT_EQ(n[2].host_reason, "op LpNormalization has no NPU lowering");
  EXPECT_FALSE(n[3].on_host);
  EXPECT_FALSE(n[4].on_host);
  EXPECT_FALSE(n[5].on_host);
}

}  // namespace
}  // namespace npu::compiler
