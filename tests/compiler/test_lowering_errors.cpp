// Graphs the NPU cannot run are errors, not silent host fallbacks: batch > 1, 1-D conv,
// any non-host-only op the lowering rejects, and a compile with no NPU layer at all.
#include <gtest/gtest.h>

#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/frontend/model_loader.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "npu/isa/check/program_check.hpp"
#include "npu/isa/check/sram_race_check.hpp"
#include "test_compile_graphs.hpp"

namespace npu::compiler {
namespace {

using testing::GraphBuilder;
using testing::edge_like_hw;

std::string compile_error(const Graph& g) {
  try {
    compile(g, testing::edge_like_hw(), builtin_strategy("none"));
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Batch, ConvRunsEveryImageWithTheWeightsLoadedOnce) {
  // Conv 3->4, 3x3, pad 1 on 8 images of 3x16x16: MACs = 8 x (4 x 16 x 16) x (3 x 3 x 3)
  // = 221,184. The weights (4 x 3 x 3 x 3 = 108 B) fit one tile: loaded once for the batch.
  GraphBuilder b("b8");
  const std::string c = b.conv("conv1", b.input("input", {8, 3, 16, 16}), 4, 3, 1, 1);
  b.output(b.unary("relu", "Relu", c));
  const CompileResult r = compile(b.g, edge_like_hw(), builtin_strategy("conv-act"));
  EXPECT_EQ(r.report.total().macs, 221184u);
  std::uint64_t weight_bytes = 0, input_bytes = 0;
  for (const auto& ins : r.program.instructions) {
    if (ins.op != isa::Opcode::Load) continue;
    const auto bytes = std::get<isa::DmaDesc>(ins.params).bytes();
    if (ins.tensor == "conv1.weight") weight_bytes += bytes;
    if (ins.tensor == "input") input_bytes += bytes;
  }
  EXPECT_EQ(weight_bytes, 108u);
  // Every image's input is read the same way (its row bands with their halo rows), and whole:
  // image b is the 768 bytes (3 x 16 x 16, int8) at b x 768 of the input tensor. (With a
  // batch the input and output tiles take two slots each -- the next image's LOAD must not
  // overwrite a tile the array still reads -- so the tiling may differ from one image's.)
  std::uint64_t input_base = 0;
  for (const auto& t : r.program.tensors)
    if (t.name == "input") input_base = t.ddr_addr;
  std::vector<std::uint64_t> per_image(8, 0);
  for (const auto& ins : r.program.instructions)
    if (ins.op == isa::Opcode::Load && ins.tensor == "input") {
      const auto& d = std::get<isa::DmaDesc>(ins.params);
      per_image.at(std::size_t((d.ddr_addr - input_base) / 768)) += d.bytes();
    }
  EXPECT_GE(per_image[0], 768u);
  for (std::size_t b = 1; b < 8; ++b) EXPECT_EQ(per_image[b], per_image[0]) << "image " << b;
  EXPECT_EQ(input_bytes, 8u * per_image[0]);
  EXPECT_TRUE(isa::check_sram_races(r.program).empty());
  EXPECT_TRUE(isa::check_program(r.program, edge_like_hw()).empty());
}

TEST(Batch, BatchedProgramsHaveNoSramRaces) {
  // Regression: with 2 images and one tile per image, a conv's second image was loaded into the
  // input slot the array was still reading (ResNet-18 at 2x3x64x64 under `none`: 251 racing
  // instructions, found by isa::check_sram_races). Every strategy must be race-free.
  LoadOptions opt;
  opt.input_shapes.insert(parse_input_shape("input=2x3x64x64"));
  const Graph g = load_model("resnet18", opt);
  for (const std::string& name : builtin_strategy_names()) {
    const CompileResult r = compile(g, edge_like_hw(), builtin_strategy(name));
    const auto races = isa::check_sram_races(r.program);
    EXPECT_TRUE(races.empty()) << name << ": " << races.size() << " races, first: "
                               << (races.empty() ? "" : races[0].message);
  }
}

TEST(Batch, ZooModelWithABatchHasBatchTimesTheMacs) {
  LoadOptions opt;
  opt.input_shapes.insert(parse_input_shape("input=2x3x224x224"));
  const Graph g2 = load_model("resnet18", opt);
  const CompileResult r2 = compile(g2, edge_like_hw(), builtin_strategy("conv-bn-act"));
  const CompileResult r1 = compile(load_model("resnet18"), edge_like_hw(), builtin_strategy("conv-bn-act"));
  // ResNet-18: 1,814,073,344 MACs per image (torchvision; test_zoo.cpp).
  EXPECT_EQ(r1.report.total().macs, 1814073344u);
  EXPECT_EQ(r2.report.total().macs, 2u * 1814073344u);
  // Two images move less than twice one image: weights are not loaded once per image.
  EXPECT_LT(r2.report.total().planned_bytes(), 2 * r1.report.total().planned_bytes());
  EXPECT_TRUE(isa::check_program(r2.program, edge_like_hw()).empty());
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
