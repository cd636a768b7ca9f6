// The loop order of a Conv over NCDHW (tiling/conv3d_plan.hpp): its DDR bytes and burst cost
// by hand on small Conv3ds, weights read once (compulsory) when a channel tile's kD slices
// fit, the per-tap count when forced or when the SRAM is too small for the weights.
#include <gtest/gtest.h>

#include "npu/compiler/backend/tiling/conv3d_plan.hpp"

namespace npu::compiler {
namespace {

// Cin x D x 4 x 4 -> Cout x D x 4 x 4, kernel 3x3x3, stride 1, pads 1 on every side.
ConvGeom slice_geom(int c_in, int c_out) {
  ConvGeom g;
  g.c_in = c_in, g.h_in = g.w_in = 4;
  g.c_out = c_out, g.h_out = g.w_out = 4;
  g.kh = g.kw = 3;
  g.pad_top = g.pad_left = g.pad_bottom = g.pad_right = 1;
  return g;
}

DepthGeom depth4() {
  DepthGeom d;
  d.d_in = d.d_out = 4, d.kd = 3, d.stride = 1, d.pad_front = 1, d.dilation = 1;
  return d;
}

TilingOptions fp32() {
  TilingOptions o;  // traffic-only choice, 64-B bursts, 64-B alignment
  o.act_bytes = 4;
  return o;
}

// Cin 2, Cout 2, D 4, H W 4, kD kH kW 3, pads 1, fp32, SRAM 1 MiB.
// T = (od, kd) pairs reading a slice: od 0 reads slices -1..1 (2), od 1 and 2 three, od 3
// reads 2..4 (2): T = 10. One kd slice of the weights Wk = 2 x 2 x 9 x 4 B = 144 B; all kD:
// 432 B (compulsory). A band of all 4 rows: 2 channels x 4 x 4 x 4 B = 128 B per slice.
TEST(Conv3dPlan, WeightsReadOnceWhenTheyFitSmallConv3dByHand) {
  const Conv3dChoice c = plan_conv3d(slice_geom(2, 2), depth4(), 1u << 20, fp32());
  ASSERT_TRUE(c.chosen);
  EXPECT_EQ(c.chosen->order, DepthOrder::WeightsResident) << c.why;
  EXPECT_EQ(c.chosen->tile.co_tile, 2);
  EXPECT_EQ(c.chosen->tile.rows_tile, 4);
  // weights: 432 B once. input: T x 128 B = 1,280 B (one channel tile).
  EXPECT_EQ(c.chosen->tile.weight_read_bytes, 432u);
  EXPECT_EQ(c.chosen->tile.input_read_bytes, 1280u);
  // Burst cost (weights kd-major in DDR: a kd slice of all channels is one run of 144 B, 3
  // bursts): weights kD x 192 = 576; input: T x 2 channel runs of 64 B (stride D H W x 4 =
  // 256 B) = 10 x 128 = 1,280; output: 4 slices x 2 channel runs of 64 B = 512. Sum 2,368.
  EXPECT_EQ(c.chosen->tile.burst_cost_bytes, 2368u);
  EXPECT_EQ(c.chosen->tile.steps, 10);  // one CONV per (od, kd) pair
  // The other orders reload a kd slice per (od, kd, row tile): weights T x 144 = 1,440 B,
  // burst 10 x 192 = 1,920; with input 1,280 and output 512: 3,712.
  ASSERT_TRUE(c.best[int(DepthOrder::InputResident)]);
  EXPECT_EQ(c.best[int(DepthOrder::InputResident)]->tile.weight_read_bytes, 1440u);
  EXPECT_EQ(c.best[int(DepthOrder::InputResident)]->tile.burst_cost_bytes, 3712u);
  EXPECT_EQ(c.why.rfind("fewest burst DDR bytes: weights-resident-depth: burst DDR 2368 B (weights 432 B", 0), 0u)
      << c.why;
}

TEST(Conv3dPlan, ForcedPerTapReloadsEveryTapsWeightSlice) {
  TilingOptions o = fp32();
  o.conv3d_order = DepthOrderPolicy::PerTap;
  const Conv3dChoice c = plan_conv3d(slice_geom(2, 2), depth4(), 1u << 20, o);
  ASSERT_TRUE(c.chosen);
  EXPECT_EQ(c.chosen->order, DepthOrder::PerTap);
  // Per (od, kd) pair and row tile (one here) the kd slice: T x Wk = 10 x 144 = 1,440 B, the
  // count before weights-resident-depth existed (24x compulsory on r3d_18). Input as above.
  // Both input channels in one group (one 144 B weight run per slice, 192 B of bursts): 3,712.
  EXPECT_EQ(c.chosen->tile.weight_read_bytes, 1440u);
  EXPECT_EQ(c.chosen->tile.input_read_bytes, 1280u);
  EXPECT_EQ(c.chosen->tile.ci_tile, 2);
  EXPECT_EQ(c.chosen->tile.burst_cost_bytes, 3712u);
  EXPECT_NE(c.why.find("order forced"), std::string::npos) << c.why;
}

// Cin 64, Cout 2 at 8 KiB: one output channel's kD weight slices are 64 x 27 x 4 B = 6,912 B
// and the smallest band (3 input rows of 64 channels) 64 x 3 x 4 x 4 B = 3,072 B in two slots:
// 13,056 B > 8,192, so weights-resident-depth does not fit; input-resident-depth needs kD such
// bands, 9,216 B > 8,192. Only per-tap (split along c_in) fits, and it reads each kd slice
// Wk = 2 x 64 x 9 x 4 B = 4,608 B once per (od, kd) pair and row tile: n_row x 10 x 4,608.
TEST(Conv3dPlan, SmallSramFallsBackToPerTapWithItsWeightCount) {
  const Conv3dChoice c = plan_conv3d(slice_geom(64, 2), depth4(), 8192, fp32());
  ASSERT_TRUE(c.chosen);
  EXPECT_FALSE(c.best[int(DepthOrder::WeightsResident)]);
  EXPECT_FALSE(c.best[int(DepthOrder::InputResident)]);
  EXPECT_EQ(c.chosen->order, DepthOrder::PerTap);
  EXPECT_GE(c.chosen->tile.n_row, 1);
  EXPECT_EQ(c.chosen->tile.weight_read_bytes, std::uint64_t(c.chosen->tile.n_row) * 10 * 4608);
  EXPECT_NE(c.why.find("weights-resident-depth: does not fit"), std::string::npos) << c.why;
  // The same layer at 1 MiB reads its 2 x 64 x 27 x 4 B = 13,824 B of weights once.
  const Conv3dChoice big = plan_conv3d(slice_geom(64, 2), depth4(), 1u << 20, fp32());
  ASSERT_TRUE(big.chosen);
  EXPECT_EQ(big.chosen->order, DepthOrder::WeightsResident);
  EXPECT_EQ(big.chosen->tile.weight_read_bytes, 13824u);
}

// Input-resident-depth wins where re-reading the input per channel tile costs more than
// re-reading the weights per (od, kd): Cin 2, Cout 64, 4 x 4, at 4 KiB. A channel tile's kD
// weight slices are cot x 2 x 27 x 4 B = 216 cot B: weights-resident-depth fits few channels
// per tile, so it reads the input n_co times. Input-resident-depth reads the input once
// (T x 128 B = 1,280 B) and every kd slice once per (od, kd, row tile): n_row x 10 x
// 64 x 2 x 9 x 4 B = n_row x 46,080 B.
TEST(Conv3dPlan, ChoiceFollowsTheBurstCostOfEachOrder) {
  const Conv3dChoice c = plan_conv3d(slice_geom(2, 64), depth4(), 4096, fp32());
  ASSERT_TRUE(c.chosen);
  for (int o = 0; o < 3; ++o)
    if (c.best[o]) {
      EXPECT_LE(c.chosen->tile.burst_cost_bytes, c.best[o]->tile.burst_cost_bytes) << o;
    }
  // Input rows the bands of a row tiling load over the 4 output rows (pads 1, 3 taps): tiles
  // of 1 row read 2, 3, 3, 2; of 2 rows 3 + 3; of 3 rows 4 + 2; of 4 rows 4.
  auto band_rows = [](int rows_tile) { return rows_tile == 1 ? 10u : rows_tile == 4 ? 4u : 6u; };
  if (const auto& ir = c.best[int(DepthOrder::InputResident)]) {
    // T x 2 channels x band rows x 4 x 4 B, once.
    EXPECT_EQ(ir->tile.input_read_bytes, 10u * 2 * band_rows(ir->tile.rows_tile) * 16);
    EXPECT_EQ(ir->tile.weight_read_bytes, std::uint64_t(ir->tile.n_row) * 46080);
  }
  if (const auto& wr = c.best[int(DepthOrder::WeightsResident)]) {
    EXPECT_EQ(wr->tile.weight_read_bytes, 13824u);  // 64 x 2 x 27 x 4 B, once
    EXPECT_EQ(wr->tile.input_read_bytes, std::uint64_t(wr->tile.n_co) * 10 * 2 * band_rows(wr->tile.rows_tile) * 16);
  }
}

}  // namespace
}  // namespace npu::compiler
