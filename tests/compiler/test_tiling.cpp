// Tiling: row bands, traffic formulas of the two loop orders, the search, SRAM layout.
#include <gtest/gtest.h>

#include "npu/compiler/backend/codegen/codegen.hpp"
#include "npu/compiler/backend/tiling/tiling.hpp"
#include "test_compile_graphs.hpp"

namespace npu::compiler {
namespace {

ConvGeom conv(int c_in, int hw_in, int c_out, int k, int stride, int pad, int group = 1) {
  ConvGeom g;
  g.c_in = c_in;
  g.h_in = g.w_in = hw_in;
  g.c_out = c_out;
  g.kh = g.kw = k;
  g.stride_h = g.stride_w = stride;
  g.pad_top = g.pad_left = g.pad_bottom = g.pad_right = pad;
  g.group = group;
  g.h_out = g.w_out = (hw_in + 2 * pad - k) / stride + 1;
  return g;
}

TEST(Tiling, InputBandOfA3x3Conv) {
  const ConvGeom g = conv(64, 56, 64, 3, 1, 1);
  // Output rows 0..13 need input rows -1..14: row -1 is padding, so rows 0..14 (15 rows).
  RowBand b = input_band(g, 0, 14);
  EXPECT_EQ(b.first_row, 0);
  EXPECT_EQ(b.rows, 15);
  EXPECT_EQ(b.pad_top, 1);
  EXPECT_EQ(b.pad_bottom, 0);
  // Output rows 14..27 need input rows 13..28: 16 rows, no padding.
  b = input_band(g, 14, 14);
  EXPECT_EQ(b.first_row, 13);
  EXPECT_EQ(b.rows, 16);
  EXPECT_EQ(b.pad_top + b.pad_bottom, 0);
  // Output rows 42..55 need input rows 41..56: row 56 is padding, so 41..55 (15 rows).
  b = input_band(g, 42, 14);
  EXPECT_EQ(b.rows, 15);
  EXPECT_EQ(b.pad_bottom, 1);
  // The CONV formula over the band gives back the tile's 14 rows: (15 + 0 + 1 - 2 - 1)/1 + 1.
  EXPECT_EQ((b.rows + b.pad_top + b.pad_bottom - (g.kh - 1) - 1) / g.stride_h + 1, 14);
}

TEST(Tiling, InputBandOfResNetStem) {
  // conv1: 7x7 stride 2 pad 3, 224 -> 112. Output rows 84..111: input rows 165..225, and
  // 224, 225 are padding: 165..223 = 59 rows, pad_bottom 2.
  const ConvGeom g = conv(3, 224, 64, 7, 2, 3);
  ASSERT_EQ(g.h_out, 112);
  const RowBand b = input_band(g, 84, 28);
  EXPECT_EQ(b.first_row, 165);
  EXPECT_EQ(b.rows, 59);
  EXPECT_EQ(b.pad_bottom, 2);
  EXPECT_EQ((b.rows + b.pad_top + b.pad_bottom - 6 - 1) / 2 + 1, 28);
}

TEST(Tiling, TrafficOfTheTwoLoopOrders) {
  const ConvGeom g = conv(3, 224, 64, 7, 2, 3);
  const TilingOptions opt;
  std::uint64_t in = 0, w = 0;
  // 4 row tiles of 28 output rows: bands of 58, 61, 61, 59 input rows (first: rows 0..57;
  // then 53..113, 109..169, 165..223) = 239 rows x 224 x 3 channels = 160,608 B; weights
  // 64 x 3 x 7 x 7 = 9,408 B read once.
  conv_traffic(g, LoopOrder::WeightsResident, 64, 28, opt, in, w);
  EXPECT_EQ(in, 239u * 224 * 3);
  EXPECT_EQ(w, 9408u);
  // Two channel tiles with weights resident re-read the input bands twice.
  conv_traffic(g, LoopOrder::WeightsResident, 32, 28, opt, in, w);
  EXPECT_EQ(in, 2u * 239 * 224 * 3);
  EXPECT_EQ(w, 9408u);
  // Input resident with two channel tiles re-reads the weights once per row tile (4x).
  conv_traffic(g, LoopOrder::InputResident, 32, 28, opt, in, w);
  EXPECT_EQ(in, 239u * 224 * 3);
  EXPECT_EQ(w, 4u * 9408);
}

TEST(Tiling, DepthwiseChannelTilesReadTheirOwnChannelsOnce) {
  const ConvGeom g = conv(96, 56, 96, 3, 1, 1, 96);
  std::uint64_t in = 0, w = 0;
  // 4 channel tiles of 24, 1 row tile: each tile loads its 24 channels x 56 x 56 once.
  conv_traffic(g, LoopOrder::WeightsResident, 24, 56, TilingOptions{}, in, w);
  EXPECT_EQ(in, 96u * 56 * 56);
  EXPECT_EQ(w, 96u * 9);
}

TEST(Tiling, DeepLayerStreamsWeightsOnceAroundResidentInput) {
  // ResNet-50 layer4 3x3 conv: 512 -> 512 at 7x7. Weights 512*512*9 = 2,359,296 B do not
  // fit 1 MiB; the 25,088 B input does. Input resident, weights streamed once: traffic is
  // exactly compulsory.
  const ConvGeom g = conv(512, 7, 512, 3, 1, 1);
  const auto p = plan_conv(g, 1u << 20, TilingOptions{});
  ASSERT_TRUE(p);
  EXPECT_EQ(p->input_read_bytes, 512u * 7 * 7);
  EXPECT_EQ(p->weight_read_bytes, 2359296u);
  EXPECT_LE(p->sram.total_bytes, 1u << 20);
  EXPECT_GE(p->steps, 4);  // split so that DMA overlaps compute
}

TEST(Tiling, SearchStaysWithinToleranceOfTheMinimum) {
  const ConvGeom g = conv(64, 56, 64, 3, 1, 1);
  TilingOptions opt;
  const auto p = plan_conv(g, 1u << 20, opt);
  ASSERT_TRUE(p);
  // Lower bound: input 64*56*56 = 200,704 B and weights 36,864 B each read once.
  const double minimum = 64.0 * 56 * 56 + 64.0 * 64 * 9;
  EXPECT_LE(double(p->input_read_bytes + p->weight_read_bytes), minimum * (1 + opt.traffic_tolerance) * 1.0 + 1e-9);
}

TEST(Tiling, NothingFitsGivesNulloptAndTheMinimalTileSize) {
  const ConvGeom g = conv(512, 7, 512, 3, 1, 1);
  TilingOptions opt;
  // Minimal tile: 1 output channel x 1 output row. Input band 512 ch x 2 rows (row 0 + pad)
  // x 7 = 7,168 B... the layout reserves the tallest band, min(3, 7) = 3 rows: 10,752 B x 2
  // slots; weights 1 x 512 x 9 = 4,608 B x 2; params 8 B x 512 = 4,096 B; output 7 B x 2
  // (each buffer aligned to 64 B): 21,504 + 9,216 + 4,096 + 64 + 7 = 34,887 B.
  EXPECT_EQ(conv_min_sram_bytes(g, opt), 34887u);
  EXPECT_FALSE(plan_conv(g, 34886, opt));
  EXPECT_TRUE(plan_conv(g, 34887, opt));
}

TEST(Tiling, DdrBankGeometryFromTheAddressMapping) {
  HwConfig hw = testing::edge_like_hw();
  // rochrababgco, LSB first: co = 1024 columns x 8 B = 8 KiB (13 bits), then bg (2 bits), ba (2 bits).
  DdrBankGeometry g = ddr_bank_geometry(hw.ddr);
  EXPECT_EQ(g.bank_stride_bytes, 8192u);
  EXPECT_EQ(g.bank_slots, 16);
  // Bank bits above the rank: robarabgchco with 2 channels: co 13 bits, ch 1 bit below bg.
  hw.ddr.address_mapping = "robarabgchco";
  hw.ddr.channels = 2;
  hw.ddr.ranks = 2;
  g = ddr_bank_geometry(hw.ddr);
  EXPECT_EQ(g.bank_stride_bytes, 16384u);  // 2^(13 + 1)
  EXPECT_EQ(g.bank_slots, 32);             // bg 2 + ra 1 + ba 2 bits
}

}  // namespace
}  // namespace npu::compiler
