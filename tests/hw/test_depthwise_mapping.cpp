// mac_array.depthwise_mapping (issue 9): the shared fold formula (isa/cost/systolic_fold.hpp), the
// MAC array's tile cost and the elaborated NPU, under both mappings. Every expected count is
// derived by hand from docs/timing.md beside the assertion:
//   scalesim:                groups x ceil(K/R) x ceil(N/C) folds, N = c_out/group, K = c_in/group*kh*kw
//   channels_across_columns: ceil(kh*kw/R) x ceil(c_out/C) folds (WS) or ceil(M/R) x ceil(c_out/C) (OS)
//   fold: WS 2R + C + M - 2, OS R + C + kh*kw - 2, IS 2R + C + N - 2.
#include <gtest/gtest.h>

#include "npu/hw/mac_array/mac_array_timing.hpp"
#include "npu/isa/cost/systolic_fold.hpp"
#include "npu_test_util.hpp"

using namespace npu;
using namespace npu::test;

namespace {

MacArrayConfig array4(Dataflow df, DepthwiseMapping m, int macs_per_pe = 1) {
  MacArrayConfig a;
  a.rows = a.cols = 4;
  a.dataflow = df;
  a.depthwise_mapping = m;
  a.macs_per_pe_per_cycle = macs_per_pe;
  return a;
}
constexpr auto WS = Dataflow::WeightStationary, OS = Dataflow::OutputStationary, IS = Dataflow::InputStationary;
constexpr auto kScaleSim = DepthwiseMapping::ScaleSim, kAcross = DepthwiseMapping::ChannelsAcrossColumns;

// The running example: 3x3 depthwise conv, 8 channels, 6x6 input, pad 1 -> 6x6 output (M = 36).
// isa::conv_array_cycles(groups, out_pixels, cin_per_group, cout_per_group, kh*kw, array).
std::int64_t dw8(const MacArrayConfig& a) { return isa::conv_array_cycles(8, 36, 1, 1, 9, a); }

isa::ConvParams dw8_params() {
  isa::ConvParams p;
  p.c_in = p.c_out = p.group = 8;
  p.h_in = p.w_in = 6;
  p.kh = p.kw = 3;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
  p.in_addr = 0, p.w_addr = 0x1000, p.out_addr = 0x2000;
  return p;
}

}  // namespace

TEST(DepthwiseMapping, ThreeByThreeOn4x4WeightStationary) {
  // scalesim: per group M = 36, N = 1, K = 9: ceil(9/4) = 3 x 1 folds of 2*4 + 4 + 36 - 2 = 46
  // = 138 cycles; 8 groups one after another: 1104.
  EXPECT_EQ(dw8(array4(WS, kScaleSim)), 1104);
  // channels_across_columns: one GEMM M = 36, N = 8, K = 9: ceil(9/4) = 3 x ceil(8/4) = 2 = 6
  // folds of the same 46 cycles = 276 (4x fewer: min(8 channels, 4 columns)).
  EXPECT_EQ(dw8(array4(WS, kAcross)), 276);
  const isa::ConvGemm g = isa::conv_gemm(8, 36, 1, 1, 9, array4(WS, kAcross));
  EXPECT_TRUE(g.channels_across_columns);
  EXPECT_EQ(g.passes, 1);
  EXPECT_EQ(g.n, 8);
  EXPECT_EQ(g.k, 9);
}

TEST(DepthwiseMapping, ThreeByThreeOn4x4OutputStationary) {
  // scalesim: per group rows <- M = 36 (9 folds), cols <- N = 1, fold 4 + 4 + 9 - 2 = 15:
  // 135 cycles x 8 groups = 1080.
  EXPECT_EQ(dw8(array4(OS, kScaleSim)), 1080);
  // channels_across_columns: 9 x ceil(8/4) = 18 folds of 15 = 270.
  EXPECT_EQ(dw8(array4(OS, kAcross)), 270);
}

TEST(DepthwiseMapping, ChannelMultiplierPutsEveryOutputChannelOnAColumn) {
  // 8 -> 16 channels, group 8 (multiplier 2), WS 4x4, M = 36.
  // scalesim: per group N = 2, K = 9: 3 x 1 folds of 46 = 138; x 8 = 1104.
  EXPECT_EQ(isa::conv_array_cycles(8, 36, 1, 2, 9, array4(WS, kScaleSim)), 1104);
  // channels_across_columns: N = 16: 3 x ceil(16/4) = 12 folds of 46 = 552.
  EXPECT_EQ(isa::conv_array_cycles(8, 36, 1, 2, 9, array4(WS, kAcross)), 552);
}

TEST(DepthwiseMapping, OnlyOneInputChannelPerGroupChangesMapping) {
  // Grouped conv with 2 input channels per group (group 4, 8 -> 8): per group N = 2, K = 18:
  // ceil(18/4) = 5 x 1 folds of 46 = 230; x 4 groups = 920 under both settings.
  EXPECT_EQ(isa::conv_array_cycles(4, 36, 2, 2, 9, array4(WS, kScaleSim)), 920);
  EXPECT_EQ(isa::conv_array_cycles(4, 36, 2, 2, 9, array4(WS, kAcross)), 920);
  // An ordinary conv from one input channel (group 1, 1 -> 8): N = 8, K = 9: 3 x 2 folds of
  // 46 = 276 under both (its channels already sit across the columns).
  EXPECT_EQ(isa::conv_array_cycles(1, 36, 1, 8, 9, array4(WS, kScaleSim)), 276);
  EXPECT_EQ(isa::conv_array_cycles(1, 36, 1, 8, 9, array4(WS, kAcross)), 276);
  // Input stationary (the loader rejects the combination; a hand-built config falls back):
  // per group rows <- K = 9 (3), cols <- M = 36 (9), T = N = 1: fold 2*4 + 4 + 1 - 2 = 11,
  // 27 x 11 = 297; x 8 = 2376 under both.
  EXPECT_EQ(dw8(array4(IS, kScaleSim)), 2376);
  EXPECT_EQ(dw8(array4(IS, kAcross)), 2376);
}

TEST(DepthwiseMapping, MacsPerPePackTheTaps) {
  // 2 MACs per PE per cycle: K = ceil(9/2) = 5 -> ceil(5/4) = 2 row folds.
  // scalesim: 8 x 2 x 1 folds of 46 = 736; channels_across_columns: 2 x 2 folds of 46 = 184.
  EXPECT_EQ(dw8(array4(WS, kScaleSim, 2)), 736);
  EXPECT_EQ(dw8(array4(WS, kAcross, 2)), 184);
}

TEST(DepthwiseMapping, MacArrayTileCostUsesTheMapping) {
  HwConfig hw;
  hw.mac_array = array4(WS, kScaleSim);
  const isa::ConvParams p = dw8_params();
  auto c = hw::conv_tile_cost(p, hw);
  // As DepthwiseMapping.ThreeByThreeOn4x4WeightStationary: 8 passes of 138.
  EXPECT_EQ(c.passes, 8);
  EXPECT_EQ(c.per_group.cycles, 138);
  EXPECT_EQ(c.array_cycles, 1104u);
  hw.mac_array.depthwise_mapping = kAcross;
  c = hw::conv_tile_cost(p, hw);
  EXPECT_EQ(c.passes, 1);
  EXPECT_EQ(c.groups, 8);
  EXPECT_EQ(c.array_cycles, 276u);
  EXPECT_EQ(c.macs, 8u * 36u * 9u);  // the work is the same, only its mapping changes
  // Mapping efficiency of the one pass: rows 9 / (3 x 4), columns 8 / (2 x 4) = 0.75.
  EXPECT_NEAR(c.per_group.mapping_efficiency, 0.75, 1e-12);
}

TEST(DepthwiseMapping, ElaboratedNpuChargesTheMappedCycles) {
  // One CONV instruction, ideal memory, 1 GHz: the tile takes its array cycles in ns.
  isa::Instruction in;
  in.op = isa::Opcode::Conv;
  in.layer = "dw";
  in.params = dw8_params();
  isa::Program p;
  p.instructions.push_back(in);
  HwConfig hw = edge_preset();
  hw.mac_array.rows = hw.mac_array.cols = 4;
  hw.mac_array.dataflow = WS;
  const auto scalesim = run_in_child(p, hw, true);
  ASSERT_TRUE(scalesim.ok) << scalesim.error;
  EXPECT_EQ(scalesim.end_ps, 1104000u);  // 1104 cycles (above)
  hw.mac_array.depthwise_mapping = kAcross;
  const auto across = run_in_child(p, hw, true);
  ASSERT_TRUE(across.ok) << across.error;
  EXPECT_EQ(across.end_ps, 276000u);  // 276 cycles (above)
  EXPECT_EQ(across.records[0].macs, scalesim.records[0].macs);
}
