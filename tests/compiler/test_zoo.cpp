// Built-in zoo (zoo.hpp) against the published figures of each network, its structure, host
// placement, input-size options, the model loader's name handling, and build speed.
//
// Sources of the expected numbers:
//  [TV]  torchvision 0.14 model tables (pytorch.org/vision/0.14/models.html): "Params" and
//        "GFLOPS" columns; torchvision's GFLOPS column counts multiply-accumulates.
//  [YO]  ultralytics/yolov5 v7.0 model summary printed by models/yolo.py for yolov5s.yaml:
//        "7235389 parameters ... 16.5 GFLOPs" (GFLOPs there = 2 x G MACs at 640x640).
//  [MR]  ../shared/models/README.md "Stats" (onnx.shape_inference on the exported files,
//        cross-checked with onnxruntime): exact MACs, weights bytes, activation bytes, op counts.
#include <gtest/gtest.h>

#include <cstdio>
#include <ctime>
#include <map>
#include <set>

#include "npu/compiler/ir/graph_stats.hpp"
#include "npu/compiler/frontend/model_loader.hpp"
#include "npu/compiler/frontend/zoo/zoo.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace npu::compiler {
namespace {

using Ints = std::vector<std::int64_t>;

std::map<std::string, int> op_counts(const Graph& g) {
  std::map<std::string, int> c;
  for (const Node& n : g.nodes) ++c[n.op_type];
  return c;
}

const Node& node_called(const Graph& g, const std::string& name) {
  for (const Node& n : g.nodes)
    if (n.name == name) return n;
  throw std::runtime_error("no node " + name);
}

TEST(Zoo, ResNet50PublishedTotals) {
  const Graph g = zoo_resnet50();
  const GraphStats s = graph_stats(g);
  // [MR] 4,089,184,256 = Conv 4,087,136,256 + Gemm 2048 * 1000 = 2,048,000; [TV] 4.09 GFLOPS.
  EXPECT_EQ(s.macs, 4089184256);
  EXPECT_NEAR(s.macs / 1e9, 4.09, 0.005);
  // [TV] 25,557,032 params (25.6 M).
  EXPECT_EQ(s.params, 25557032);
  // [MR] weights 102,440,608 B fp32 = (params + BN mean/var 53,120) * 4.
  EXPECT_EQ(s.buffers, 53120);
  EXPECT_EQ(s.weight_bytes, 102440608);
  // [MR] intermediate activations 150,243,328 B fp32; input 1x3x224x224x4 = 602,112 B.
  EXPECT_EQ(s.intermediate_bytes, 150243328);
  EXPECT_EQ(s.input_bytes, 602112);
  EXPECT_EQ(s.output_bytes, 4000);  // 1000 logits x 4 B
  // conv1 by hand: 112 * 112 * 64 outputs x 3 * 7 * 7 = 802,816 x 147 = 118,013,952.
  EXPECT_EQ(node_macs(g, node_called(g, "/conv1/Conv")), 118013952);
  // [MR] op counts (175 nodes).
  const std::map<std::string, int> expected{{"Conv", 53}, {"BatchNormalization", 53}, {"Relu", 49},
      {"Add", 16}, {"MaxPool", 1}, {"GlobalAveragePool", 1}, {"Flatten", 1}, {"Gemm", 1}};
  EXPECT_EQ(op_counts(g), expected);
  EXPECT_EQ(g.tensor("output").shape, (Ints{1, 1000}));
}

TEST(Zoo, ResNet18PublishedTotals) {
  const Graph g = zoo_resnet18();
  const GraphStats s = graph_stats(g);
  // By hand (BasicBlock, layers [2,2,2,2]):
  //  conv1 7x7: 112*112*64 * 3*49                                          = 118,013,952
  //  layer1: 4 convs 3x3 64->64 at 56x56: 4 * 200,704 * 576               = 462,422,016
  //  layer2..4, each: first 3x3 (C->2C, s2) 57,802,752 + 3 x 3x3 (2C->2C)
  //    115,605,504 + 1x1 downsample 6,422,528                              = 411,041,792 (x3)
  //  fc 512 * 1000                                                         =     512,000
  //  total = 118,013,952 + 462,422,016 + 3 * 411,041,792 + 512,000         = 1,814,073,344
  // [TV] 1.81 GFLOPS.
  EXPECT_EQ(s.macs, 1814073344);
  // [TV] 11,689,512 params (11.69 M).
  EXPECT_EQ(s.params, 11689512);
  const std::map<std::string, int> expected{{"Conv", 20}, {"BatchNormalization", 20}, {"Relu", 17},
      {"Add", 8}, {"MaxPool", 1}, {"GlobalAveragePool", 1}, {"Flatten", 1}, {"Gemm", 1}};
  EXPECT_EQ(op_counts(g), expected);  // 1 + 8*2 + 3 downsample convs; 1 + 8*2 Relus
}

TEST(Zoo, MobileNetV2PublishedTotals) {
  const Graph g = zoo_mobilenet_v2();
  const GraphStats s = graph_stats(g);
  // [MR] 300,774,272 = Conv 299,494,272 + Gemm 1280 * 1000; [TV] 0.30 GFLOPS.
  EXPECT_EQ(s.macs, 300774272);
  // [TV] 3,504,872 params (3.5 M); [MR] weights 3,538,984 elems = params + 34,112 BN mean/var.
  EXPECT_EQ(s.params, 3504872);
  EXPECT_EQ(s.params + s.buffers, 3538984);
  EXPECT_EQ(s.intermediate_bytes, 78723840);  // [MR]
  // [MR] 222 nodes = 152 + 70 Constants (Clip bounds, which the IR keeps as attributes).
  const std::map<std::string, int> expected{{"Conv", 52}, {"BatchNormalization", 52}, {"Clip", 35},
      {"Add", 10}, {"GlobalAveragePool", 1}, {"Flatten", 1}, {"Gemm", 1}};
  EXPECT_EQ(op_counts(g), expected);
  const Node& relu6 = node_called(g, "/features/features.0/features.0.2/Clip");
  EXPECT_FLOAT_EQ(relu6.attr_float("min", -1), 0.0f);
  EXPECT_FLOAT_EQ(relu6.attr_float("max", -1), 6.0f);
  // First depthwise conv: group 32, W [32,1,3,3].
  const Node& dw = node_called(g, "/features/features.1/conv/conv.0/conv.0.0/Conv");
  EXPECT_EQ(dw.attr_int("group", 0), 32);
  EXPECT_EQ(g.tensor(dw.inputs[1]).shape, (Ints{32, 1, 3, 3}));
}

TEST(Zoo, YoloV5sPublishedTotals) {
  const Graph g = zoo_yolov5s();
  const GraphStats s = graph_stats(g);
  // [MR] 8,216,780,800 (all Conv); the 8.2 G MACs.
  EXPECT_EQ(s.macs, 8216780800);
  EXPECT_NEAR(s.macs / 1e9, 8.2, 0.05);
  // [YO] 16.5 GFLOPs comes from thop, which also counts BatchNorm, activations and the
  // Detect biases: 2 x 8.217 = 16.43 conv GFLOPs is within 0.5 % of it.
  EXPECT_NEAR(2.0 * s.macs / 1e9, 16.5, 0.1);
  // [YO] 7,235,389 parameters; [MR] 7,254,397 weight elems = params + 19,008 BN mean/var.
  EXPECT_EQ(s.params, 7235389);
  EXPECT_EQ(s.params + s.buffers, 7254397);
  EXPECT_EQ(s.intermediate_bytes, 488808000);  // [MR]
  EXPECT_EQ(s.output_bytes, 8568000);          // 25200 x 85 x 4 B
  // model.0: Conv(3, 32, k6, s2, p2): 320*320*32 outputs x 3*6*6 = 353,894,400.
  EXPECT_EQ(node_macs(g, node_called(g, "/model.0/conv/Conv")), 353894400);
  // [MR] 320 nodes = 293 + 27 Constants.
  const std::map<std::string, int> expected{{"Mul", 69}, {"Conv", 60}, {"Sigmoid", 60},
      {"BatchNormalization", 57}, {"Concat", 17}, {"Add", 10}, {"Reshape", 6}, {"MaxPool", 3},
      {"Transpose", 3}, {"Split", 3}, {"Pow", 3}, {"Resize", 2}};
  EXPECT_EQ(op_counts(g), expected);
  // 25200 boxes = 3 anchors x (80^2 + 40^2 + 20^2).
  EXPECT_EQ(g.tensor("output").shape, (Ints{1, 25200, 85}));
}

TEST(Zoo, YoloV5sBoxDecodeRunsOnTheNpu) {
  const Graph g = zoo_yolov5s();
  // The Detect box decode (per level Reshape, Transpose, Sigmoid, Split, 4 Mul, Add, Pow,
  // Concat, Reshape) is all NPU work now: Transpose a layout copy, Pow by 2 an ACT, the
  // grid/anchor Muls and Adds broadcast ELTWISE layers. No host node at all.
  const GraphStats s = graph_stats(g);
  EXPECT_EQ(s.host_nodes, 0);
  for (const Node& n : g.nodes) EXPECT_FALSE(n.on_host) << n.name << ": " << n.host_reason;
}

TEST(Zoo, YoloV5sDecodeConstantsCarryTheirValues) {
  const Graph g = zoo_yolov5s();
  // grid (P3, 80x80) = stack(xv, yv) - 0.5: cell (y 0, x 1) of anchor 0 -> (0.5, -0.5).
  const Tensor& grid = g.tensor("/model.24/Constant_2_output_0");
  EXPECT_EQ(grid.shape, (Ints{1, 3, 80, 80, 2}));
  EXPECT_FLOAT_EQ(grid.float_data.at(2), 0.5f);
  EXPECT_FLOAT_EQ(grid.float_data.at(3), -0.5f);
  // anchor_grid (P5, 20x20): anchor 2 is (373, 326) px (yolov5s.yaml), first cell.
  const Tensor& anchors = g.tensor("/model.24/Constant_22_output_0");
  EXPECT_EQ(anchors.shape, (Ints{1, 3, 20, 20, 2}));
  EXPECT_FLOAT_EQ(anchors.float_data.at(2 * 20 * 20 * 2), 373.0f);
  EXPECT_FLOAT_EQ(anchors.float_data.at(2 * 20 * 20 * 2 + 1), 326.0f);
  EXPECT_EQ(g.tensor("/model.24/Constant_3_output_0").float_data, (std::vector<float>{8.0f}));  // stride P3
  // Weights are shape-only (zoo.hpp).
  EXPECT_TRUE(g.tensor("model.0.conv.weight").is_constant);
  EXPECT_TRUE(g.tensor("model.0.conv.weight").float_data.empty());
  EXPECT_EQ(g.tensor("model.0.conv.weight").shape, (Ints{32, 3, 6, 6}));
}

TEST(Zoo, NodeOrderIsTopologicalAndNamesAreUnique) {
  for (const std::string& name : zoo_model_names()) {
    const Graph g = build_zoo_model(name);
    std::set<std::string> defined(g.inputs.begin(), g.inputs.end()), names;
    for (const auto& [t, tensor] : g.tensors)
      if (tensor.is_constant) defined.insert(t);
    for (const Node& n : g.nodes) {
      for (const std::string& in : n.inputs) EXPECT_TRUE(defined.count(in)) << name << ": " << n.name << " reads " << in;
      for (const std::string& out : n.outputs) defined.insert(out);
      EXPECT_TRUE(names.insert(n.name).second) << name << ": duplicate " << n.name;
    }
  }
}

TEST(Zoo, InputSizeAndBatchOptions) {
  // Batch 2 doubles every MAC.
  ZooOptions b2;
  b2.batch = 2;
  EXPECT_EQ(graph_stats(zoo_resnet50(b2)).macs, 2 * 4089184256);
  // 448x448: every conv output area x4 (all sizes stay even), the classifier unchanged:
  // 4 * 4,087,136,256 + 2,048,000 = 16,350,593,024.
  ZooOptions big;
  big.height = big.width = 448;
  EXPECT_EQ(graph_stats(zoo_resnet50(big)).macs, 16350593024);
  // YOLOv5s at 320: 3 x (40^2 + 20^2 + 10^2) = 6300 boxes, MACs / 4 = 2,054,195,200.
  LoadOptions o;
  o.input_shapes["input"] = {1, 3, 320, 320};
  const Graph y = load_model("yolov5s", o);
  EXPECT_EQ(y.tensor("output").shape, (Ints{1, 6300, 85}));
  EXPECT_EQ(graph_stats(y).macs, 8216780800 / 4);
  ZooOptions odd;
  odd.height = odd.width = 100;
  EXPECT_THROW(zoo_yolov5s(odd), ConfigError);
}

TEST(Zoo, LoaderNamesAliasesAndErrors) {
  EXPECT_EQ(zoo_canonical_name("mobilenetv2"), std::optional<std::string>("mobilenet_v2"));
  EXPECT_EQ(zoo_canonical_name("vgg16"), std::nullopt);
  EXPECT_EQ(load_model("mobilenetv2").name, "mobilenet_v2");
  EXPECT_EQ(load_model("resnet18").name, "resnet18");
  try {
    load_model("yolov8n");
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("yolov8n: error: unknown model"), std::string::npos) << msg;
    EXPECT_NE(msg.find("mobilenet_v2, resnet18, resnet50, yolov5s; alias mobilenetv2"), std::string::npos) << msg;
  }
  LoadOptions wrong;
  wrong.input_shapes["images"] = {1, 3, 224, 224};
  EXPECT_THROW(load_model("resnet50", wrong), ConfigError);
  LoadOptions gray;
  gray.input_shapes["input"] = {1, 1, 224, 224};
  EXPECT_THROW(load_model("resnet50", gray), ConfigError);
}

TEST(Zoo, BuildsAreDeterministic) {
  const Graph a = zoo_yolov5s(), b = zoo_yolov5s();
  ASSERT_EQ(a.nodes.size(), b.nodes.size());
  for (std::size_t i = 0; i < a.nodes.size(); ++i) {
    EXPECT_EQ(a.nodes[i].name, b.nodes[i].name);
    EXPECT_EQ(a.nodes[i].inputs, b.nodes[i].inputs);
    EXPECT_EQ(a.nodes[i].attrs, b.nodes[i].attrs);
  }
}

TEST(Zoo, RepeatedBuildsAreIdentical) {
  // Building the zoo graph is deterministic: ten builds give the same MACs each time
  // (4,089,184,256 for ResNet-50, models README). Its speed is measured by
  // tests/bench/bench_compiler.cpp, not here.
  std::int64_t macs = 0;
  const int builds = 10;
  for (int i = 0; i < builds; ++i) macs += graph_stats(load_model("resnet50")).macs;
  EXPECT_EQ(macs, builds * 4089184256);
}

}  // namespace
}  // namespace npu::compiler
