// mac_array.depthwise_mapping end to end: the compiler's per-layer array cycles (tiling and
// report, compiler/src/backend/tiling/tiling.cpp) and the MAC array's tile costs (hw_models) come from the
// one shared formula (isa/cost/systolic_fold.hpp), so on MobileNetV2 they agree layer by layer
// under both mappings, and only the depthwise layers change.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <variant>

#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/frontend/model_loader.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "npu/hw/mac_array/mac_array_timing.hpp"

namespace npu {
namespace {

struct LayerCycles {
  std::map<std::string, double> report;     ///< compute_ns of conv/gemm layers (1 ns = 1 cycle at 1 GHz)
  std::map<std::string, std::uint64_t> hw;  ///< sum of the MAC array's array cycles of the layer's tiles
  std::map<std::string, bool> depthwise;    ///< group > 1 and one input channel per group
};

LayerCycles mobilenet_v2_on_edge(DepthwiseMapping mapping) {
  HwConfig hw = load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  hw.mac_array.depthwise_mapping = mapping;
  const auto r = compiler::compile(compiler::load_model("mobilenet_v2"), hw, compiler::builtin_strategy("conv-bn-act"));
  LayerCycles out;
  for (const auto& l : r.report.layers)
    if (l.kind == "conv" || l.kind == "gemm") out.report[l.layer] = l.compute_ns;
  for (const auto& l : r.lowered.layers)
    out.depthwise[l.name] = l.kind == compiler::LayerKind::Conv && l.geom.group > 1 && l.geom.cin_per_group() == 1;
  for (const auto& in : r.program.instructions) {
    if (const auto* p = std::get_if<isa::ConvParams>(&in.params)) {
      out.hw[in.layer] += hw::conv_tile_cost(*p, hw).array_cycles;
    } else if (const auto* g = std::get_if<isa::GemmParams>(&in.params)) {
      out.hw[in.layer] += hw::gemm_tile_cost(*g, hw).array_cycles;
    }
  }
  return out;
}

TEST(DepthwiseMappingEndToEnd, CompilerAndMacArrayAgreeAndOnlyDepthwiseLayersChange) {
  ASSERT_EQ(load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml").npu.clock_mhz, 1000);
  const LayerCycles base = mobilenet_v2_on_edge(DepthwiseMapping::ScaleSim);
  const LayerCycles across = mobilenet_v2_on_edge(DepthwiseMapping::ChannelsAcrossColumns);
  ASSERT_FALSE(base.report.empty());
  int depthwise_layers = 0;
  for (const auto& [layer, ns] : base.report) {
    ASSERT_EQ(base.hw.count(layer), 1u) << layer;
    EXPECT_DOUBLE_EQ(ns, double(base.hw.at(layer))) << layer;  // compiler == hardware, scalesim
    ASSERT_EQ(across.report.count(layer), 1u) << layer;
    EXPECT_DOUBLE_EQ(across.report.at(layer), double(across.hw.at(layer))) << layer;  // ... and across
    if (base.depthwise.count(layer) && base.depthwise.at(layer)) {
      ++depthwise_layers;
      // Fewer cycles: by up to min(channels of a tile, 32 columns) = 32x when every channel
      // tile is a multiple of 32 (the 960-channel 7x7 layers); the time-based tile choice trades
      // fill/drain per tile against DMA overlap, so smaller tiles give less (5.8x at least here).
      EXPECT_LT(across.hw.at(layer) * 2, base.hw.at(layer)) << layer;
    } else {
      EXPECT_EQ(across.hw.at(layer), base.hw.at(layer)) << layer;  // dense layers unchanged
    }
  }
  EXPECT_EQ(depthwise_layers, 17);  // MobileNetV2: one 3x3 depthwise conv per inverted-residual block
}

}  // namespace
}  // namespace npu
