// The analytic systolic-array model against hand derivations from SCALE-Sim's demand
// matrices (scale-sim-v2 scalesim/compute/systolic_compute_{ws,os,is}.py; docs/timing.md).
#include <gtest/gtest.h>

#include "npu/hw/mac_array/mac_array_timing.hpp"
#include "npu/hw/mac_array/systolic_model.hpp"

using npu::Dataflow;
using npu::hw::GemmDims;
using npu::hw::systolic_cycles;

TEST(SystolicModel, GemmTileOn4x4WeightStationary) {
  // ofmap[8 x 4] = ifmap[8 x 4] * filter[4 x 4] (M = 8, N = 4, K = 4) on 4 x 4 WS.
  // K = 4 rows, N = 4 cols -> one fold. Per fold: R = 4 cycles to load the weights, the
  // M = 8 ifmap rows stream in skewed over R rows (+R-1 = 3) and the last partial sums
  // drain through C-1 = 3 more PEs: 4 + 8 + 3 + 3 = 18 = 2R + C + M - 2.
  const auto c = systolic_cycles(GemmDims{8, 4, 4}, 4, 4, Dataflow::WeightStationary);
  EXPECT_EQ(c.row_folds, 1);
  EXPECT_EQ(c.col_folds, 1);
  EXPECT_EQ(c.cycles_per_fold, 18);
  EXPECT_EQ(c.cycles, 18);
  EXPECT_EQ(c.scalesim_total_cycles(), 17);  // SCALE-Sim reports the last row index
  EXPECT_DOUBLE_EQ(c.mapping_efficiency, 1.0);
  // Compute util: 16 PEs x T = 8 MACs / (16 x (2R + 2C + T - 3) = 16 x 21) = 8 / 21.
  EXPECT_DOUBLE_EQ(c.compute_utilisation, 8.0 / 21.0);
}

TEST(SystolicModel, GemmTileOn4x4OutputStationary) {
  // Same GEMM on 4 x 4 OS: M = 8 ofmap rows over R = 4 -> 2 folds, N = 4 over C = 4 -> 1.
  // Per fold the K = 4 operand pairs stream in (T = 4), skewed over R rows (+3) and C cols
  // (+3): 4 + 3 + 3 = 10 = R + C + T - 2. Two folds: 20.
  const auto c = systolic_cycles(GemmDims{8, 4, 4}, 4, 4, Dataflow::OutputStationary);
  EXPECT_EQ(c.row_folds, 2);
  EXPECT_EQ(c.col_folds, 1);
  EXPECT_EQ(c.cycles_per_fold, 10);
  EXPECT_EQ(c.cycles, 20);
  EXPECT_DOUBLE_EQ(c.mapping_efficiency, 1.0);
}

TEST(SystolicModel, GemmTileOn4x4InputStationary) {
  // IS: K = 4 rows x M = 8 cols -> 1 x 2 folds; per fold R (inputs load) + N = 4 filters
  // streamed + R - 1 + C - 1 skew/drain = 2R + C + N - 2 = 14. Two folds: 28.
  const auto c = systolic_cycles(GemmDims{8, 4, 4}, 4, 4, Dataflow::InputStationary);
  EXPECT_EQ(c.row_folds, 1);
  EXPECT_EQ(c.col_folds, 2);
  EXPECT_EQ(c.cycles, 28);
}

TEST(SystolicModel, PartialFoldsLowerMappingEfficiency) {
  // M = 5 on 4 rows (OS): folds use 4 then 1 rows -> mean 2.5 / 4; N = 3 of 4 cols -> 3/4.
  const auto c = systolic_cycles(GemmDims{5, 3, 7}, 4, 4, Dataflow::OutputStationary);
  EXPECT_EQ(c.row_folds, 2);
  EXPECT_EQ(c.col_folds, 1);
  EXPECT_EQ(c.cycles, 2 * (4 + 4 + 7 - 2));
  EXPECT_DOUBLE_EQ(c.mapping_efficiency, (2.5 / 4.0) * (3.0 / 4.0));
}

TEST(SystolicModel, ResNet18Conv1OnScaleSimV2Config) {
  // SCALE-Sim v2 scale.cfg (32 x 32, OS), Resnet18.csv Conv1: 224x224, 7x7, 3 ch, 64 filters,
  // stride 2. ofmap = ceil((224 - 7 + 2) / 2) = 110 -> M = 12100, N = 64, K = 147.
  // Folds: ceil(12100/32) = 379 x ceil(64/32) = 2 = 758, each 32 + 32 + 147 - 2 = 209.
  const auto c = systolic_cycles(GemmDims{12100, 64, 147}, 32, 32, Dataflow::OutputStationary);
  EXPECT_EQ(c.cycles, 758 * 209);
  EXPECT_EQ(c.scalesim_total_cycles(), 158421);
  // Mapping efficiency: 12100 / (379 x 32) = 12100 / 12128.
  EXPECT_NEAR(c.mapping_efficiency, 12100.0 / 12128.0, 1e-12);
}

TEST(SystolicModel, ResNet18Conv1OnWeightStationary32) {
  // v3 scale.cfg (32 x 32 WS): K = 147 -> ceil(147/32) = 5 row folds, N = 64 -> 2 col folds;
  // each fold 2*32 + 32 + 12100 - 2 = 12194 -> 10 x 12194 = 121940 (SCALE-Sim: 121939).
  const auto c = systolic_cycles(GemmDims{12100, 64, 147}, 32, 32, Dataflow::WeightStationary);
  EXPECT_EQ(c.cycles, 121940);
  // Rows used 147 / (5 x 32), cols 64 / 64.
  EXPECT_NEAR(c.mapping_efficiency, 147.0 / 160.0, 1e-12);
}

TEST(SystolicModel, RejectsEmptyShapes) {
  EXPECT_THROW(systolic_cycles(GemmDims{0, 4, 4}, 4, 4, Dataflow::WeightStationary), std::invalid_argument);
}

TEST(MacArrayTiming, DepthwiseConvRunsOneSingleChannelLayerPerGroup) {
  // Depthwise 3x3 on 8 channels of 6x6 (pad 1 -> 6x6 out), 4x4 WS: per group M = 36, N = 1,
  // K = 9 -> ceil(9/4) = 3 row folds x 1 col fold, each 2*4 + 4 + 36 - 2 = 46 -> 138 cycles;
  // 8 groups run one after another: 1104 cycles (SCALE-Sim maps "DP" layers the same way).
  npu::HwConfig hw;
  hw.mac_array.rows = hw.mac_array.cols = 4;
  hw.mac_array.dataflow = Dataflow::WeightStationary;
  npu::isa::ConvParams p;
  p.c_in = p.c_out = p.group = 8;
  p.h_in = p.w_in = 6;
  p.kh = p.kw = 3;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
  const auto c = npu::hw::conv_tile_cost(p, hw);
  EXPECT_EQ(c.per_group.cycles, 138);
  EXPECT_EQ(c.array_cycles, 1104u);
  EXPECT_EQ(c.macs, 8u * 36u * 9u);
}

TEST(MacArrayTiming, FusedEpilogueAddsPipelineLatencyAndLaneLimit) {
  // GEMM 8x4x4 on 4x4 WS = 18 cycles (above). Fused ReLU (latency 1) on 32 outputs with 4
  // lanes streams in 8 cycles < 18, so the tile is 18 + 1 = 19. With bias as well the
  // add stage adds default_latency_cycles (4): 23.
  npu::HwConfig hw;
  hw.mac_array.rows = hw.mac_array.cols = 4;
  hw.act_unit.lanes = 4;
  hw.act_unit.default_latency_cycles = 4;
  hw.act_unit.op_latency_cycles["relu"] = 1;
  npu::isa::GemmParams g;
  g.m = 8, g.n = 4, g.k = 4;
  g.epilogue.act = npu::isa::ActOp::Relu;
  EXPECT_EQ(npu::hw::gemm_tile_cost(g, hw).cycles(), 19u);
  g.epilogue.has_bias = true;
  EXPECT_EQ(npu::hw::gemm_tile_cost(g, hw).cycles(), 23u);
  // With 1 lane the epilogue streams 32 cycles > 18: 32 + 1 + 4 = 37.
  hw.act_unit.lanes = 1;
  EXPECT_EQ(npu::hw::gemm_tile_cost(g, hw).cycles(), 37u);
}
