// ONNX import of small hand-made models (written with the ONNX protobuf API in each test):
// initializers in raw and typed form, Constant nodes, attribute kinds, and the opset
// differences the importer turns into one canonical IR form (onnx_import.hpp).
#include <gtest/gtest.h>

#include <cfloat>
#include <tuple>

#include "npu/compiler/frontend/model_loader.hpp"
#include "npu/compiler/frontend/onnx/onnx_import.hpp"
#include "npu/compiler/transforms/canonicalize/shape_inference.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "test_onnx_util.hpp"

namespace npu::compiler {
namespace {

using npu::test::OnnxModel;
using Ints = std::vector<std::int64_t>;

/// Import + shape inference, as load_model does for a file.
Graph load(const OnnxModel& m, const std::string& name = "model.onnx") {
  Graph g = import_onnx_bytes(m.bytes(), name);
  infer_shapes(g, name);
  place_host_ops(g);
  return g;
}

const Node& node_called(const Graph& g, const std::string& name) {
  for (const Node& n : g.nodes)
    if (n.name == name) return n;
  throw std::runtime_error("no node " + name);
}

TEST(OnnxImport, InitializersRawAndTypedGiveTheSameData) {
  OnnxModel m(13);
  m.input("x", {1, 2, 2, 2});
  m.init_float("w_raw", {2, 2, 1, 1}, {1.0f, -2.0f, 0.5f, 4.0f}, true);
  m.init_float("w_typed", {2, 2, 1, 1}, {1.0f, -2.0f, 0.5f, 4.0f}, false);
  m.init_int64("s_raw", {2}, {1, -1}, true);
  m.init_int64("s_typed", {2}, {1, -1}, false);
  m.node("Conv", "c1", {"x", "w_raw"}, {"y1"});
  m.node("Conv", "c2", {"x", "w_typed"}, {"y2"});
  m.node("Reshape", "r1", {"y1", "s_raw"}, {"z1"});
  m.node("Reshape", "r2", {"y2", "s_typed"}, {"z2"});
  m.output("z1");
  m.output("z2");
  Graph g = load(m);
  EXPECT_EQ(g.tensor("w_raw").float_data, (std::vector<float>{1.0f, -2.0f, 0.5f, 4.0f}));
  EXPECT_EQ(g.tensor("w_typed").float_data, g.tensor("w_raw").float_data);
  EXPECT_EQ(g.tensor("s_raw").int_data, (Ints{1, -1}));
  EXPECT_EQ(g.tensor("s_typed").int_data, (Ints{1, -1}));
  EXPECT_TRUE(g.tensor("w_raw").is_constant);
  EXPECT_EQ(g.tensor("z2").shape, (Ints{1, 8}));  // [1,2,2,2] viewed as [1, -1]
  EXPECT_EQ(g.inputs, (std::vector<std::string>{"x"}));
}

TEST(OnnxImport, Int32Float16AndDoubleInitializers) {
  OnnxModel m(13);
  m.input("x", {2});
  auto* i32 = m.graph().add_initializer();
  i32->set_name("i32");
  i32->set_data_type(onnx::TensorProto_DataType_INT32);
  i32->add_dims(2);
  i32->add_int32_data(7);
  i32->add_int32_data(-3);
  auto* h = m.graph().add_initializer();
  h->set_name("h");
  h->set_data_type(onnx::TensorProto_DataType_FLOAT16);
  h->add_dims(3);
  // IEEE 754 binary16: 0x3C00 = 1.0, 0xC000 = -2.0, 0x3800 = 0.5 (little-endian bytes).
  const unsigned char half[] = {0x00, 0x3C, 0x00, 0xC0, 0x00, 0x38};
  h->set_raw_data(std::string(reinterpret_cast<const char*>(half), sizeof half));
  auto* d = m.graph().add_initializer();
  d->set_name("d");
  d->set_data_type(onnx::TensorProto_DataType_DOUBLE);
  d->add_dims(2);
  d->add_double_data(0.25);
  d->add_double_data(-8.0);
  m.node("Add", "a1", {"x", "d"}, {"y"});
  m.node("Mul", "a2", {"y", "i32"}, {"z"});  // keeps i32 referenced
  m.node("Add", "a3", {"z", "h"}, {"w"});
  m.output("w");
  // The Add with a 3-element h does not broadcast with [2]: import only, no inference.
  Graph g = import_onnx_bytes(m.bytes(), "types.onnx");
  EXPECT_EQ(g.tensor("i32").type, ElemType::Int32);
  EXPECT_EQ(g.tensor("i32").int_data, (Ints{7, -3}));
  EXPECT_EQ(g.tensor("h").type, ElemType::Float16);
  EXPECT_EQ(g.tensor("h").float_data, (std::vector<float>{1.0f, -2.0f, 0.5f}));
  EXPECT_EQ(g.tensor("d").float_data, (std::vector<float>{0.25f, -8.0f}));
}

TEST(OnnxImport, ConstantNodesBecomeConstantTensors) {
  OnnxModel m(13);
  m.input("x", {1, 3});
  m.constant_float("c_tensor", {1, 3}, {1, 2, 3});
  auto& vf = m.node("Constant", "k1", {}, {"c_float"});
  OnnxModel::attr_f(vf, "value_float", 2.5f);
  auto& vfs = m.node("Constant", "k2", {}, {"c_floats"});
  OnnxModel::attr_floats(vfs, "value_floats", {1, 1, 1});
  auto& vi = m.node("Constant", "k3", {}, {"c_ints"});
  OnnxModel::attr_ints(vi, "value_ints", {3, 1});
  m.node("Add", "a", {"x", "c_tensor"}, {"y1"});
  m.node("Mul", "b", {"y1", "c_float"}, {"y2"});
  m.node("Add", "c", {"y2", "c_floats"}, {"y3"});
  m.node("Reshape", "r", {"y3", "c_ints"}, {"y4"});
  m.output("y4");
  OnnxModelInfo info;
  Graph g = import_onnx_bytes(m.bytes(), "const.onnx", &info);
  infer_shapes(g, "const.onnx");
  EXPECT_EQ(info.constant_nodes, 4);
  EXPECT_EQ(g.nodes.size(), 4u);  // the Constant nodes are gone
  EXPECT_EQ(g.tensor("c_tensor").float_data, (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(g.tensor("c_float").shape, Ints{});  // value_float is a scalar
  EXPECT_EQ(g.tensor("c_float").float_data, (std::vector<float>{2.5f}));
  EXPECT_EQ(g.tensor("c_floats").shape, Ints{3});
  EXPECT_EQ(g.tensor("c_ints").type, ElemType::Int64);
  EXPECT_EQ(g.tensor("y4").shape, (Ints{3, 1}));
}

TEST(OnnxImport, AttributeKindsMapToAttrValues) {
  // FLOAT (LeakyRelu alpha), INTS (Transpose perm), INT (Flatten axis), STRING (Resize mode).
  OnnxModel m(13);
  m.input("x", {1, 4, 2, 2});
  OnnxModel::attr_f(m.node("LeakyRelu", "lr", {"x"}, {"a"}), "alpha", 0.1f);
  OnnxModel::attr_ints(m.node("Transpose", "tr", {"a"}, {"b"}), "perm", {0, 1, 3, 2});
  OnnxModel::attr_i(m.node("Flatten", "fl", {"b"}, {"c"}), "axis", 1);
  m.init_float("scales", {4}, {1, 1, 2, 2});
  OnnxModel::attr_s(m.node("Resize", "rs", {"b", "", "scales"}, {"d"}), "mode", "nearest");
  m.output("c");
  m.output("d");
  Graph g = load(m);
  EXPECT_FLOAT_EQ(g.nodes.at(0).attr_float("alpha", 0), 0.1f);
  EXPECT_EQ(g.nodes.at(1).attr_ints("perm"), (Ints{0, 1, 3, 2}));
  EXPECT_EQ(g.nodes.at(2).attr_int("axis", 0), 1);
  EXPECT_EQ(g.nodes.at(3).attr_string("mode", ""), "nearest");
}

TEST(OnnxImport, AttributesTheOpDoesNotDefineAreAllRejected) {
  // ONNX's checker refuses them; silently ignoring one (e.g. a converter's fused
  // "activation" on a Conv) would change what the model computes.
  OnnxModel m(13);
  m.input("x", {1, 4});
  auto& n = m.node("LeakyRelu", "lr", {"x"}, {"y"});
  OnnxModel::attr_f(n, "alpha", 0.1f);
  OnnxModel::attr_i(n, "an_int", 3);
  OnnxModel::attr_s(n, "a_string", "hello");
  m.output("y");
  try {
    load(m);
    FAIL() << "expected the unknown attributes to be rejected";
  } catch (const ConfigError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("2 attribute(s) that the ONNX op does not define at opset 13"), std::string::npos) << msg;
    EXPECT_NE(msg.find("node #0 'lr' (LeakyRelu): attribute 'an_int'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("node #0 'lr' (LeakyRelu): attribute 'a_string'"), std::string::npos) << msg;
  }
}

TEST(OnnxImport, ClipBoundsAreAttributesInOpset9AndInputsFrom11) {
  // Opset 9: Clip(min, max) attributes.
  OnnxModel a(9);
  a.input("x", {1, 8});
  auto& c = a.node("Clip", "relu6", {"x"}, {"y"});
  OnnxModel::attr_f(c, "min", 0.0f);
  OnnxModel::attr_f(c, "max", 6.0f);
  a.output("y");
  const Graph g9 = load(a);
  const Node& n9 = g9.nodes.at(0);
  // Opset 13: min and max as inputs from Constant nodes (torchvision MobileNetV2 export).
  OnnxModel b(13);
  b.input("x", {1, 8});
  b.constant_float("lo", {}, {0.0f});
  b.constant_float("hi", {}, {6.0f});
  b.node("Clip", "relu6", {"x", "lo", "hi"}, {"y"});
  b.output("y");
  Graph g13 = load(b);
  const Node& n13 = g13.nodes.at(0);
  for (const Node* n : {&n9, &n13}) {
    EXPECT_FLOAT_EQ(n->attr_float("min", -1), 0.0f);
    EXPECT_FLOAT_EQ(n->attr_float("max", -1), 6.0f);
    EXPECT_EQ(n->inputs, (std::vector<std::string>{"x"}));
  }
  EXPECT_FALSE(g13.has_tensor("lo"));  // folded into the attribute, then dropped
  // Opset 11 with only max (min input left empty) from an initializer: min unbounded.
  OnnxModel c11(11);
  c11.input("x", {1, 8});
  c11.init_float("hi", {}, {6.0f});
  c11.node("Clip", "cap", {"x", "", "hi"}, {"y"});
  c11.output("y");
  const Graph g11 = load(c11);
  const Node& n11 = g11.nodes.at(0);
  EXPECT_FLOAT_EQ(n11.attr_float("min", 0), -FLT_MAX);
  EXPECT_FLOAT_EQ(n11.attr_float("max", 0), 6.0f);
}

TEST(OnnxImport, SplitSizesAreAnAttributeBefore13AndAnInputFrom13) {
  for (int opset : {11, 13}) {
    OnnxModel m(opset);
    m.input("x", {1, 3, 4, 4, 85});
    std::vector<std::string> ins{"x"};
    auto* n = &m.node("Split", "split", {}, {"xy", "wh", "conf"});
    if (opset >= 13) {
      m.init_int64("sizes", {3}, {2, 2, 81});
      n->add_input("x");
      n->add_input("sizes");
    } else {
      n->add_input("x");
      OnnxModel::attr_ints(*n, "split", {2, 2, 81});
    }
    OnnxModel::attr_i(*n, "axis", 4);
    m.output("conf");
    Graph g = load(m);
    EXPECT_EQ(g.nodes[0].attr_ints("split"), (Ints{2, 2, 81})) << opset;
    EXPECT_EQ(g.nodes[0].inputs.size(), 1u) << opset;
    EXPECT_EQ(g.tensor("conf").shape, (Ints{1, 3, 4, 4, 81})) << opset;
  }
}

TEST(OnnxImport, ResizeScalesAndSizesAcrossOpsets) {
  // Opset 10: Resize(X, scales).
  OnnxModel r10(10);
  r10.input("x", {1, 8, 5, 5});
  r10.init_float("scales", {4}, {1, 1, 2, 2});
  r10.node("Resize", "up", {"x", "scales"}, {"y"});
  r10.output("y");
  Graph g10 = load(r10);
  EXPECT_EQ(g10.tensor("y").shape, (Ints{1, 8, 10, 10}));
  EXPECT_EQ(g10.nodes[0].attr_string("coordinate_transformation_mode", ""), "asymmetric");
  // Opset 13 (YOLOv5 export): Resize(X, roi="", scales=Constant), nearest, asymmetric, floor.
  OnnxModel r13(13);
  r13.input("x", {1, 256, 20, 20});
  r13.constant_float("scales", {4}, {1, 1, 2, 2});
  auto& n = r13.node("Resize", "up", {"x", "", "scales"}, {"y"});
  OnnxModel::attr_s(n, "mode", "nearest");
  OnnxModel::attr_s(n, "coordinate_transformation_mode", "asymmetric");
  OnnxModel::attr_s(n, "nearest_mode", "floor");
  r13.output("y");
  Graph g13 = load(r13);
  EXPECT_EQ(g13.tensor("y").shape, (Ints{1, 256, 40, 40}));
  EXPECT_EQ(std::get<std::vector<float>>(g13.nodes[0].attrs.at("scales")), (std::vector<float>{1, 1, 2, 2}));
  EXPECT_EQ(g13.nodes[0].inputs.size(), 1u);
  // Opset 11: sizes instead of scales (scales given as an empty tensor).
  OnnxModel r11(11);
  r11.input("x", {1, 8, 5, 5});
  r11.init_float("roi", {0}, {});
  r11.init_float("no_scales", {0}, {});
  r11.init_int64("sizes", {4}, {1, 8, 7, 9});
  r11.node("Resize", "to", {"x", "roi", "no_scales", "sizes"}, {"y"});
  r11.output("y");
  Graph g11 = load(r11);
  EXPECT_EQ(g11.tensor("y").shape, (Ints{1, 8, 7, 9}));
  EXPECT_EQ(g11.nodes[0].attr_string("coordinate_transformation_mode", ""), "half_pixel");  // 11+ default
}

TEST(OnnxImport, Opset9UpsampleBecomesResize) {
  OnnxModel m(9);
  m.input("x", {1, 4, 3, 3});
  m.init_float("scales", {4}, {1, 1, 2, 2});
  auto& n = m.node("Upsample", "up", {"x", "scales"}, {"y"});
  OnnxModel::attr_s(n, "mode", "nearest");
  m.output("y");
  Graph g = load(m);
  EXPECT_EQ(g.nodes[0].op_type, "Resize");
  EXPECT_EQ(g.nodes[0].attr_string("nearest_mode", ""), "floor");
  EXPECT_EQ(g.tensor("y").shape, (Ints{1, 4, 6, 6}));
}

TEST(OnnxImport, SoftmaxDefaultAxisDependsOnOpset) {
  // Softmax axis defaults to 1 before opset 13 and to -1 from 13 (ONNX Changelog).
  for (auto [opset, axis] : {std::pair<int, std::int64_t>{11, 1}, {13, 3}}) {
    OnnxModel m(opset);
    m.input("x", {1, 2, 3, 4});
    m.node("Softmax", "sm", {"x"}, {"y"});
    m.output("y");
    EXPECT_EQ(load(m).nodes[0].attr_int("axis", -9), axis) << opset;
  }
}

TEST(OnnxImport, APReluWithOneSlopeIsLeakyReluAndPerChannelSlopesStay) {
  // PRelu(x, slope) = x >= 0 ? x : slope x (Operators.md). One slope value, as a [1] tensor or
  // as [C, 1, 1] all alike, is LeakyRelu(alpha = slope), which the NPU runs and fuses
  // (new-user finding: "op PRelu has no NPU lowering", every strategy on the host).
  for (const auto& [dims, values, leaky] :
       {std::tuple<Ints, std::vector<float>, bool>{{1}, {0.25f}, true},
        {{3, 1, 1}, {0.1f, 0.1f, 0.1f}, true},
        {{3, 1, 1}, {0.1f, 0.2f, 0.3f}, false}}) {
    OnnxModel m(13);
    m.input("x", {1, 3, 4, 4});
    m.init_float("slope", dims, values);
    m.node("PRelu", "prelu", {"x", "slope"}, {"y"});
    m.output("y");
    const Graph g = load(m);
    const Node& n = g.nodes.at(0);
    EXPECT_EQ(n.op_type, leaky ? "LeakyRelu" : "PRelu") << dims.size();
    if (leaky) {
      EXPECT_EQ(n.inputs, (std::vector<std::string>{"x"}));
      EXPECT_EQ(n.attr_float("alpha", -1), values[0]);
    }
  }
}

TEST(OnnxImport, PowTransposeAndReshapeWithZeroAndMinusOne) {
  OnnxModel m(13);
  m.input("x", {1, 255, 4, 4});
  m.init_int64("view", {5}, {0, 3, 85, 0, -1});  // 0 copies dims 0 and 3, -1 is 4
  m.node("Reshape", "view", {"x", "view"}, {"v"});
  auto& t = m.node("Transpose", "perm", {"v"}, {"p"});
  OnnxModel::attr_ints(t, "perm", {0, 1, 3, 4, 2});
  m.constant_float("two", {}, {2.0f});
  m.node("Pow", "sq", {"p", "two"}, {"y"});
  m.output("y");
  Graph g = load(m);
  EXPECT_EQ(g.tensor("v").shape, (Ints{1, 3, 85, 4, 4}));
  EXPECT_EQ(g.tensor("y").shape, (Ints{1, 3, 4, 4, 85}));
  EXPECT_FALSE(node_called(g, "sq").on_host);    // Pow by a constant: a vector-unit ACT (pow)
  EXPECT_FALSE(node_called(g, "perm").on_host);  // Transpose: an NPU layout copy
  EXPECT_FALSE(node_called(g, "view").on_host);  // Reshape: a view
}

TEST(OnnxImport, InitializersListedAsInputsAreNotGraphInputs) {
  // IR version 3 files list every initializer among the graph inputs too.
  OnnxModel m(9, 3);
  m.input("x", {1, 2, 4, 4});
  m.input("w", {4, 2, 1, 1});
  m.weight("w", {4, 2, 1, 1});
  m.node("Conv", "c", {"x", "w"}, {"y"});
  m.output("y");
  Graph g = load(m);
  EXPECT_EQ(g.inputs, (std::vector<std::string>{"x"}));
  EXPECT_EQ(g.tensor("y").shape, (Ints{1, 4, 4, 4}));
}

TEST(OnnxImport, NodesOutOfOrderAreSortedTopologically) {
  OnnxModel m(13);
  m.input("x", {1, 4});
  m.node("Sigmoid", "second", {"a"}, {"b"});
  m.node("Relu", "first", {"x"}, {"a"});
  m.node("Relu", "third", {"b"}, {"c"});
  m.output("c");
  Graph g = load(m);
  ASSERT_EQ(g.nodes.size(), 3u);
  EXPECT_EQ(g.nodes[0].name, "first");
  EXPECT_EQ(g.nodes[1].name, "second");
  EXPECT_EQ(g.nodes[2].name, "third");
}

TEST(OnnxImport, UnnamedNodesGetOpTypeAndIndex) {
  OnnxModel m(13);
  m.input("x", {1, 4});
  m.node("Relu", "", {"x"}, {"a"});
  m.node("Relu", "", {"a"}, {"b"});
  m.output("b");
  Graph g = load(m);
  EXPECT_EQ(g.nodes[0].name, "Relu_0");
  EXPECT_EQ(g.nodes[1].name, "Relu_1");
}

TEST(OnnxImport, ConvAutoPadFromAFileIsResolved) {
  // Same as ONNX's test_conv_with_autopad_same: 5x5, k 3, s 2, SAME_LOWER -> 3x3, pads 1.
  OnnxModel m(13);
  m.input("x", {1, 1, 5, 5});
  m.weight("W", {1, 1, 3, 3});
  auto& n = m.node("Conv", "conv", {"x", "W"}, {"y"});
  OnnxModel::attr_s(n, "auto_pad", "SAME_LOWER");
  OnnxModel::attr_ints(n, "kernel_shape", {3, 3});
  OnnxModel::attr_ints(n, "strides", {2, 2});
  m.output("y");
  Graph g = load(m);
  EXPECT_EQ(g.tensor("y").shape, (Ints{1, 1, 3, 3}));
  EXPECT_EQ(g.nodes[0].attr_ints("pads"), (Ints{1, 1, 1, 1}));
}

TEST(OnnxImport, ExternalDataIsReadFromBesideTheModel) {
  OnnxModel m(13);
  m.input("x", {1, 2});
  auto* t = m.graph().add_initializer();
  t->set_name("b");
  t->set_data_type(onnx::TensorProto_DataType_FLOAT);
  t->add_dims(2);
  t->set_data_location(onnx::TensorProto_DataLocation_EXTERNAL);
  auto add_kv = [&](const char* k, const char* v) {
    auto* kv = t->add_external_data();
    kv->set_key(k);
    kv->set_value(v);
  };
  add_kv("location", "ext_weights.bin");
  add_kv("offset", "4");
  add_kv("length", "8");
  const float data[3] = {99.0f, 1.5f, -2.5f};  // the tensor starts at byte 4
  OnnxModel::write_bytes("ext_weights.bin", std::string(reinterpret_cast<const char*>(data), sizeof data));
  m.node("Add", "a", {"x", "b"}, {"y"});
  m.output("y");
  const std::string path = m.write("ext_model.onnx");
  Graph g = load_model(path);
  EXPECT_EQ(g.tensor("b").float_data, (std::vector<float>{1.5f, -2.5f}));
}

TEST(OnnxImport, InputShapeOverrideFixesADynamicBatch) {
  OnnxModel m(13);
  m.input("images", {-1, 3, 8, 8}, "batch_size");
  m.weight("w", {4, 3, 3, 3});
  m.node("Conv", "c", {"images", "w"}, {"y"});
  m.output("y");
  const std::string path = m.write("dynamic_ok.onnx");
  LoadOptions opt;
  opt.input_shapes["images"] = {2, 3, 8, 8};
  Graph g = load_model(path, opt);
  EXPECT_EQ(g.tensor("y").shape, (Ints{2, 4, 6, 6}));  // (8 - 3) / 1 + 1 = 6
}

TEST(OnnxImport, ParseInputShape) {
  const auto [name, dims] = parse_input_shape("images=1x3x640x640");
  EXPECT_EQ(name, "images");
  EXPECT_EQ(dims, (Ints{1, 3, 640, 640}));
  EXPECT_EQ(parse_input_shape("a=b=7").first, "a=b");  // the last '=' separates
  for (const char* bad : {"1x3x224x224", "x=", "x=1x0x2", "x=1xx2", "x=1x-3", "=1x2"})
    EXPECT_THROW(parse_input_shape(bad), ConfigError) << bad;
  try {
    parse_input_shape("x=1xAx2");
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("expected NAME=D0xD1x..."), std::string::npos);
  }
}

}  // namespace
}  // namespace npu::compiler
