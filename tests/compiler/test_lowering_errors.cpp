// Graphs the NPU cannot run are errors, not silent host fallbacks: batch > 1, 1-D conv,
// any non-host-only op the lowering rejects, and a compile with no NPU layer at all.
#include <gtest/gtest.h>

#include "npu/compiler/compiler.hpp"
#include "npu/compiler/model_loader.hpp"
#include "test_compile_graphs.hpp"

namespace npu::compiler {
namespace {

using testing::GraphBuilder;

std::string compile_error(const Graph& g) {
  try {
    compile(g, testing::edge_like_hw(), builtin_strategy("none"));
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

TEST(LoweringErrors, BatchAboveOneNamesTheNodeAndTheFix) {
  GraphBuilder b("b8");
  const std::string c = b.conv("conv1", b.input("input", {8, 3, 16, 16}), 4, 3, 1, 1);
  b.output(b.unary("relu", "Relu", c));
  EXPECT_EQ(compile_error(b.g),
            "model 'b8': error: node 'conv1' (Conv): cannot be lowered to the NPU: batch 8: the NPU lowering "
            "supports batch 1 (run the images one at a time); pass --input-shape input=1x3x16x16");
}

TEST(LoweringErrors, BatchAboveOneFromTheLoaderNamesTheModel) {
  LoadOptions opt;
  opt.input_shapes.insert(parse_input_shape("input=8x3x224x224"));
  const Graph g = load_model("resnet18", opt);
  const std::string m = compile_error(g);
  EXPECT_EQ(m.rfind("resnet18: error: node '", 0), 0u) << m;
  EXPECT_NE(m.find("batch 8: the NPU lowering supports batch 1"), std::string::npos) << m;
  EXPECT_NE(m.find("pass --input-shape input=1x3x224x224"), std::string::npos) << m;
}

TEST(LoweringErrors, OneDimensionalConvIsAClearError) {
  GraphBuilder b("conv1d");
  b.input("x", {1, 3, 100});
  b.constant("w", {8, 3, 5}, -0.5f, 0.5f);
  b.add_tensor("y", {1, 8, 96});
  b.node("conv", "Conv", {"x", "w"}, {"y"}).attrs["kernel_shape"] = std::vector<std::int64_t>{5};
  b.output("y");
  EXPECT_EQ(compile_error(b.g),
            "model 'conv1d': error: node 'conv' (Conv): cannot be lowered to the NPU: 1-D convolution (input "
            "[1, 3, 100]): the NPU lowering supports 2-D convolutions on 4-D NCHW tensors only; re-export the "
            "model with it as a 2-D Conv with a 1xK kernel on an N x C x 1 x L input");
}

TEST(LoweringErrors, HostOnlyOpsStillGoToTheHost) {
  // Transpose is a documented host-only op (the YOLO decode): placed on the host, no error.
  GraphBuilder b("with_host");
  const std::string c = b.conv("conv", b.input("x", {1, 3, 8, 8}), 4, 3, 1, 1);
  b.add_tensor("t.out", {1, 8, 8, 4});
  b.node("transpose", "Transpose", {c}, {"t.out"}).attrs["perm"] = std::vector<std::int64_t>{0, 2, 3, 1};
  b.output("t.out");
  EXPECT_EQ(compile_error(b.g), "no error");
}

TEST(LoweringErrors, NoNpuLayerAtAllIsAnError) {
  GraphBuilder b("all_host");
  // LpNormalization has no NPU lowering (a Transpose would now be an NPU layout copy).
  b.add_tensor("t.out", {1, 3, 8, 8});
  b.node("lpnorm", "LpNormalization", {b.input("x", {1, 3, 8, 8})}, {"t.out"});
  b.output("t.out");
  EXPECT_EQ(compile_error(b.g),
            "model 'all_host': error: no layer runs on the NPU: 1 node(s) on the host (first host node: "
            "'lpnorm': op LpNormalization has no NPU lowering); the program would be empty. Give a model with at "
            "least one Conv, Gemm, pooling or element-wise op the NPU lowers (docs/compiler.md, Lowering)");
}

}  // namespace
}  // namespace npu::compiler
