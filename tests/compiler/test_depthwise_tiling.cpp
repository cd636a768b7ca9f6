// The compiler's array cycles of depthwise tiles under mac_array.depthwise_mapping
// (conv_array_cycles in compiler/src/backend/tiling/tiling.cpp over the shared isa/cost/systolic_fold.hpp), and
// the time-based tile choice filling the columns with channels. Formulas: docs/timing.md.
#include <gtest/gtest.h>

#include "npu/compiler/backend/tiling/tiling.hpp"

namespace npu::compiler {
namespace {

MacArrayConfig array32(Dataflow d, DepthwiseMapping m) {
  MacArrayConfig a;
  a.rows = a.cols = 32;
  a.dataflow = d;
  a.depthwise_mapping = m;
  return a;
}

// 3x3 depthwise, pad 1, stride 1 on c x h x h.
ConvGeom depthwise(int c, int h) {
  ConvGeom g;
  g.c_in = g.c_out = g.group = c;
  g.h_in = g.w_in = g.h_out = g.w_out = h;
  g.kh = g.kw = 3;
  g.pad_top = g.pad_left = g.pad_bottom = g.pad_right = 1;
  return g;
}

TEST(DepthwiseTiling, ChannelsAcrossColumnsOn32x32) {
  const ConvGeom g = depthwise(32, 8);
  const auto ws = Dataflow::WeightStationary, os = Dataflow::OutputStationary;
  // One tile (32 channels x 8 rows, M = 64). scalesim: 32 groups of 1 fold of 2*32 + 32 + 64 - 2
  // = 158 -> 5,056 (as SystolicTiling.DepthwiseGroupsRunOneAfterAnother).
  EXPECT_EQ(conv_array_cycles(g, 32, 8, array32(ws, DepthwiseMapping::ScaleSim), 64), 5056u);
  // channels_across_columns: N = 32, K = 9 -> 1 x 1 fold of 158.
  EXPECT_EQ(conv_array_cycles(g, 32, 8, array32(ws, DepthwiseMapping::ChannelsAcrossColumns), 64), 158u);
  // OS: rows <- M = 64 (2 folds), cols <- 32 channels (1), fold 32 + 32 + 9 - 2 = 71 -> 142
  // (scalesim: 32 x 142 = 4,544).
  EXPECT_EQ(conv_array_cycles(g, 32, 8, array32(os, DepthwiseMapping::ChannelsAcrossColumns), 64), 142u);
  // Tiles of 8 channels use 8 of the 32 columns: 4 tiles x 1 fold of 158 = 632.
  EXPECT_EQ(conv_array_cycles(g, 8, 8, array32(ws, DepthwiseMapping::ChannelsAcrossColumns), 64), 632u);
  // Tiles of 4 rows (M = 32): 2 row tiles x 1 fold of 2*32 + 32 + 32 - 2 = 126 -> 252.
  EXPECT_EQ(conv_array_cycles(g, 32, 4, array32(ws, DepthwiseMapping::ChannelsAcrossColumns), 64), 252u);
}

TEST(DepthwiseTiling, TimeBasedChoiceSeesTheMapping) {
  // 96 channels of 56x56 (a MobileNetV2-sized depthwise layer), edge-like: 32x32 WS, 1 GHz,
  // 25.6 GB/s, 1 MiB SRAM. The plan's array cycles follow the configured mapping.
  TilingOptions o;
  o.array = array32(Dataflow::WeightStationary, DepthwiseMapping::ScaleSim);
  o.core_period_ns = 1.0;
  o.ddr_bytes_per_ns = 25.6;
  o.burst_bytes = 64;
  const ConvGeom g = depthwise(96, 56);
  const auto scalesim = plan_conv(g, 1u << 20, o);
  ASSERT_TRUE(scalesim);
  // scalesim: every tile runs its channels one after another, each a fold of 2*32 + 32 + M - 2;
  // at best one row tile (M = 3136): 96 x 3230 = 310,080 cycles, more row tiles add fills.
  EXPECT_GE(scalesim->array_cycles, 310080u) << scalesim->describe(g);
  o.array.depthwise_mapping = DepthwiseMapping::ChannelsAcrossColumns;
  const auto across = plan_conv(g, 1u << 20, o);
  ASSERT_TRUE(across);
  EXPECT_EQ(across->array_cycles, conv_array_cycles(g, across->co_tile, across->rows_tile, o.array, 64));
  // The choice minimises max(compute, memory) + (compute + memory) / steps, so its compute is
  // at most that estimate for the one-tile plan 96co x 56r: compute 3 folds (96/32) of 3230 =
  // 9,690 ns, memory ~0.6 MB (input and output 96 x 56 x 56 B each) / 25.6 GB/s ~ 23.6 us:
  // ~23.6 + 33.3 ~ 57 us -> under 310,080 / 5 = 62,016 cycles.
  EXPECT_LT(across->array_cycles * 5, scalesim->array_cycles) << across->describe(g);
}

}  // namespace
}  // namespace npu::compiler
