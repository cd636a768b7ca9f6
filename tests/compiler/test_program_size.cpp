// The program-size lower bound (backend/codegen/program_size.hpp) that lets code generation
// refuse an oversized program before building it: it must never exceed the instructions
// generate() really emits, or a program under --max-instructions would be refused.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backend/codegen/program_size.hpp"
#include "npu/compiler/backend/codegen/codegen.hpp"
#include "npu/compiler/backend/schedule/depth_first.hpp"
#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/frontend/model_loader.hpp"
#include "npu/compiler/frontend/zoo/zoo.hpp"
#include "npu/compiler/transforms/pass_manager.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace npu::compiler {
namespace {

const std::string kSizeEdge = std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml";
const std::string kTiny = std::string(NPU_SOURCE_DIR) + "/tests/data/tiny_convnet.onnx";

/// Code generation of `graph` under `strategy` as compile() runs it for the configured SRAM
/// (graph passes, lowering, depth-first marks, the hardware's tiling options), no program passes.
CodegenResult generate_for(Graph graph, const HwConfig& hw, const std::string& strategy) {
  PassContext ctx;
  ctx.model = graph.name;
  ctx.hw = &hw;
  PassManager::from_names(builtin_strategy(strategy).passes).run(graph, ctx);
  LoweredGraph lg = lower(graph, hw);
  mark_depth_first_layers(graph, lg);
  TilingOptions t = hardware_tiling_options(hw, TilingOptions{});
  t.act_bytes = lg.act_bytes;
  t.sram_capacity_bytes = hw.sram.capacity_bytes;
  t.cin_split = true;
  t.max_program_instructions = 100000000;
  return generate(lg, hw, t, graph.name, strategy);
}

TEST(ProgramSizeBound, NeverAboveTheInstructionsGenerated) {
  const HwConfig hw = load_hw_config(kSizeEdge);
  for (const std::string& model : zoo_model_names())
    for (const std::string strategy : {"none", "conv-bn-act", "residual", "depth-first"}) {
      const CodegenResult cg = generate_for(build_zoo_model(model), hw, strategy);
      const std::uint64_t n = cg.program.instructions.size();
      EXPECT_GT(cg.instruction_lower_bound, 0u) << model << " " << strategy;
      EXPECT_LE(cg.instruction_lower_bound, n) << model << " " << strategy;
    }
}

TEST(ProgramSizeBound, BatchedConvsAreCountedPerImage) {
  // tiny_convnet at batch 64: every Conv runs each of its tiles for every image, so the bound
  // grows with the batch and stays under the real count.
  const HwConfig hw = load_hw_config(kSizeEdge);
  LoadOptions lo;
  add_input_shape(lo, "input=64x3x16x16");
  const CodegenResult cg = generate_for(load_model(kTiny, lo), hw, "none");
  EXPECT_LE(cg.instruction_lower_bound, cg.program.instructions.size());
  // At least 64 images x (CONV + STORE + input LOAD) on each of its four Convs.
  EXPECT_GE(cg.instruction_lower_bound, 4u * 64u * 3u);
  const CodegenResult b2 = generate_for(build_zoo_model("resnet18", ZooOptions{2, 0, 0}), hw, "conv-bn-act");
  EXPECT_LE(b2.instruction_lower_bound, b2.program.instructions.size());
}

TEST(ProgramSizeBound, ConvLayerBoundFollowsItsTilePlan) {
  // One 3x3 Conv, 16 -> 1 channel, 3 x 64 input rows -> 1 output row of 64, batch 10: one
  // output channel and one output row leave one tile per image whatever the SRAM, so the
  // bound is 10 images x (CONV + STORE + input LOAD) = 30.
  HwConfig hw = load_hw_config(kSizeEdge);
  LoweredGraph lg;
  lg.act_bytes = 1;
  LayerSpec L;
  L.name = "conv";
  L.kind = LayerKind::Conv;
  L.batch = 10;
  L.geom.c_in = 16, L.geom.c_out = 1, L.geom.h_in = 3, L.geom.w_in = 64, L.geom.h_out = 1, L.geom.w_out = 64;
  L.geom.kh = L.geom.kw = 3, L.geom.pad_left = L.geom.pad_right = 1;
  lg.layers.push_back(L);
  TilingOptions t = hardware_tiling_options(hw, TilingOptions{});
  t.sram_capacity_bytes = hw.sram.capacity_bytes;
  const codegen::ProgramSizeBound b = codegen::program_size_bound(lg, hw, t, {false});
  EXPECT_EQ(b.largest.images, 10u);
  EXPECT_EQ(b.largest.tiles_per_image, 1u);
  EXPECT_EQ(b.instructions, 30u);
}

}  // namespace
}  // namespace npu::compiler
