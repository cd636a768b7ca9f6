// Cross-check of the built-in zoo against the real ONNX exports in ../shared/models (see
// its README): importing each file and building the zoo model of the same name must give
// the same layers in the same order - every Conv/Gemm with identical input, weight and
// output shapes and attributes - the same MACs and parameter counts node by node, and the
// totals the README computed with onnx.shape_inference. Skipped if the folder is absent.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "npu/compiler/ir/graph_stats.hpp"
#include "npu/compiler/frontend/model_loader.hpp"
#include "npu/compiler/frontend/onnx/onnx_import.hpp"
#include "npu/compiler/frontend/zoo/zoo.hpp"
#include "test_onnx_util.hpp"
#include "shared_data.hpp"

namespace npu::compiler {
namespace {

const std::string kZooOnnxModels = npu::test::shared_path("models");

// The zoo/ONNX cross-check needs resnet50_bn.onnx, mobilenet_v2_bn.onnx and yolov5s_bn.onnx.
#define SKIP_WITHOUT_MODELS()                                    \
  NPU_REQUIRE_SHARED_OR_SKIP(kZooOnnxModels + "/resnet50_bn.onnx");     \
  NPU_REQUIRE_SHARED_OR_SKIP(kZooOnnxModels + "/mobilenet_v2_bn.onnx"); \
  NPU_REQUIRE_SHARED_OR_SKIP(kZooOnnxModels + "/yolov5s_bn.onnx")

std::string shape_str(const std::vector<std::int64_t>& s) {
  std::string o = "[";
  for (std::size_t i = 0; i < s.size(); ++i) o += (i ? "," : "") + std::to_string(s[i]);
  return o + "]";
}

/// One Conv/Gemm layer as the back end sees it.
std::string layer_signature(const Graph& g, const Node& n) {
  std::string s = n.name + " " + n.op_type + " x" + shape_str(g.tensor(n.inputs[0]).shape) + " w" +
                  shape_str(g.tensor(n.inputs[1]).shape) + " y" + shape_str(g.tensor(n.outputs[0]).shape);
  if (n.inputs.size() > 2) s += " b" + shape_str(g.tensor(n.inputs[2]).shape);
  for (const char* a : {"strides", "pads", "dilations", "kernel_shape"})
    if (n.has_attr(a)) s += std::string(" ") + a + shape_str(n.attr_ints(a));
  if (n.op_type == "Conv") s += " group" + std::to_string(n.attr_int("group", 1));
  if (n.op_type == "Gemm") s += " transB" + std::to_string(n.attr_int("transB", 0));
  return s;
}

std::vector<std::string> layers(const Graph& g) {
  std::vector<std::string> out;
  for (const Node& n : g.nodes)
    if (n.op_type == "Conv" || n.op_type == "Gemm" || n.op_type == "MatMul") out.push_back(layer_signature(g, n));
  return out;
}

/// First difference between two graphs in node sequence, attributes, placement or tensor
/// shapes/types; "" when they are the same.
std::string first_difference(const Graph& a, const Graph& b) {
  if (a.inputs != b.inputs || a.outputs != b.outputs) return "graph inputs/outputs differ";
  if (a.nodes.size() != b.nodes.size())
    return "node count " + std::to_string(a.nodes.size()) + " vs " + std::to_string(b.nodes.size());
  for (std::size_t i = 0; i < a.nodes.size(); ++i) {
    const Node &x = a.nodes[i], &y = b.nodes[i];
    if (x.name != y.name || x.op_type != y.op_type) return "node " + std::to_string(i) + ": " + x.name + " vs " + y.name;
    if (x.inputs != y.inputs || x.outputs != y.outputs) return "node " + x.name + ": inputs/outputs differ";
    if (x.attrs != y.attrs) return "node " + x.name + ": attributes differ";
    if (x.on_host != y.on_host) return "node " + x.name + ": host placement differs";
  }
  if (a.tensors.size() != b.tensors.size())
    return "tensor count " + std::to_string(a.tensors.size()) + " vs " + std::to_string(b.tensors.size());
  for (const auto& [name, t] : a.tensors) {
    auto it = b.tensors.find(name);
    if (it == b.tensors.end()) return "tensor " + name + " missing";
    const Tensor& u = it->second;
    if (t.shape != u.shape || t.type != u.type || t.is_constant != u.is_constant)
      return "tensor " + name + ": " + shape_str(t.shape) + " vs " + shape_str(u.shape);
    // Where both carry values (reshape shapes, YOLO grids and anchors), they must agree.
    if (!t.float_data.empty() && !u.float_data.empty() && t.float_data != u.float_data)
      return "tensor " + name + ": values differ";
    if (t.int_data != u.int_data) return "tensor " + name + ": integer values differ";
  }
  return "";
}

struct Expected {
  const char* zoo;
  const char* file;
  std::int64_t macs, params, weight_elems, intermediate_bytes;
  std::size_t conv_gemm_layers;
};

void cross_check(const Expected& e) {
  const std::string path = kZooOnnxModels + "/" + e.file;
  const std::clock_t cpu0 = std::clock();
  const auto wall0 = std::chrono::steady_clock::now();
  const Graph onnx = load_model(path);
  const double cpu_s = static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC;
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  std::printf("%s: import + shape inference %.3f s CPU, %.3f s wall\n", e.file, cpu_s, wall_s);
  const Graph zoo = build_zoo_model(e.zoo);

  // Same Conv/Gemm layers, in order, with the same shapes and attributes.
  const auto lo = layers(onnx), lz = layers(zoo);
  ASSERT_EQ(lo.size(), e.conv_gemm_layers);
  ASSERT_EQ(lz.size(), lo.size());
  for (std::size_t i = 0; i < lo.size(); ++i) EXPECT_EQ(lz[i], lo[i]) << "layer " << i;

  // Same MACs and parameters node by node.
  const GraphStats so = graph_stats(onnx), sz = graph_stats(zoo);
  ASSERT_EQ(so.nodes.size(), sz.nodes.size());
  for (std::size_t i = 0; i < so.nodes.size(); ++i) {
    EXPECT_EQ(sz.nodes[i].macs, so.nodes[i].macs) << so.nodes[i].node;
    EXPECT_EQ(sz.nodes[i].params, so.nodes[i].params) << so.nodes[i].node;
    EXPECT_EQ(sz.nodes[i].output_bytes, so.nodes[i].output_bytes) << so.nodes[i].node;
  }
  // Totals of ../shared/models/README.md (and the published figures, see test_zoo.cpp).
  for (const GraphStats* s : {&so, &sz}) {
    EXPECT_EQ(s->macs, e.macs);
    EXPECT_EQ(s->params, e.params);
    EXPECT_EQ(s->params + s->buffers, e.weight_elems);
    EXPECT_EQ(s->intermediate_bytes, e.intermediate_bytes);
  }
  // And in fact the whole graph: names, ops, attributes, placement, every tensor shape.
  EXPECT_EQ(first_difference(zoo, onnx), "");
  // The ONNX file carries real weights.
  EXPECT_FALSE(onnx.tensor(onnx.nodes.front().inputs[1]).float_data.empty());
}

TEST(ZooOnnxCrossCheck, ResNet50) {
  SKIP_WITHOUT_MODELS();
  // README: 4,089,184,256 MACs; weights 25,610,152 elems (25,557,032 params + 53,120 BN
  // mean/var); intermediate activations 150,243,328 B fp32; 53 Conv + 1 Gemm.
  cross_check({"resnet50", "resnet50_bn.onnx", 4089184256, 25557032, 25610152, 150243328, 54});
}

TEST(ZooOnnxCrossCheck, MobileNetV2) {
  SKIP_WITHOUT_MODELS();
  // README: 300,774,272 MACs; 3,538,984 weight elems; 78,723,840 B; 52 Conv + 1 Gemm.
  cross_check({"mobilenet_v2", "mobilenet_v2_bn.onnx", 300774272, 3504872, 3538984, 78723840, 53});
}

TEST(ZooOnnxCrossCheck, YoloV5s) {
  SKIP_WITHOUT_MODELS();
  // README: 8,216,780,800 MACs; 7,254,397 weight elems; 488,808,000 B; 60 Conv.
  cross_check({"yolov5s", "yolov5s_bn.onnx", 8216780800, 7235389, 7254397, 488808000, 60});
}

TEST(ZooOnnxCrossCheck, ResNet50ImportKeepsEveryNode) {
  SKIP_WITHOUT_MODELS();
  // models README: 175 nodes (Conv 53, BatchNormalization 53, Relu 49, Add 16, MaxPool,
  // GlobalAveragePool, Flatten, Gemm). Import speed: tests/bench/bench_compiler.cpp.
  const Graph g = load_model(kZooOnnxModels + "/resnet50_bn.onnx");
  EXPECT_EQ(g.nodes.size(), 175u);
}

TEST(ZooOnnxCrossCheck, OutputShapesMatchTheReferenceOutputs) {
  SKIP_WITHOUT_MODELS();
  // The reference outputs beside each file were produced by running the torch model; their
  // dims must equal the zoo graph's inferred output shape.
  for (const auto& [zoo, data] : {std::pair<const char*, const char*>{"resnet50", "resnet50_bn_data"},
                                  {"mobilenet_v2", "mobilenet_v2_bn_data"},
                                  {"yolov5s", "yolov5s_bn_data"}}) {
    std::ifstream f(kZooOnnxModels + "/" + data + "/test_data_set_0/output_0.pb", std::ios::binary);
    ASSERT_TRUE(f) << data;
    onnx::TensorProto t;
    ASSERT_TRUE(t.ParseFromIstream(&f)) << data;
    const std::vector<std::int64_t> dims(t.dims().begin(), t.dims().end());
    const Graph g = build_zoo_model(zoo);
    EXPECT_EQ(g.tensor(g.outputs.at(0)).shape, dims) << zoo;
  }
}

}  // namespace
}  // namespace npu::compiler
