// The input-channel split (cin_split.hpp): its DDR burst cost and minimal tile by hand, and
// that it offers a plan exactly where plan_conv has none.
#include <gtest/gtest.h>

#include "npu/compiler/backend/tiling/cin_split.hpp"
#include "npu/compiler/backend/tiling/tiling.hpp"

namespace npu::compiler {
namespace {

// [64, 16, 16] -> 8 channels, 3x3, dilation 12, pad 12: output 16 x 16. Every output row reads
// input rows r-12..r+12 clipped to the image, i.e. all 16 rows for any row tile here.
ConvGeom dilated() {
  ConvGeom g;
  g.c_in = 64, g.h_in = g.w_in = 16;
  g.c_out = 8, g.h_out = g.w_out = 16;
  g.kh = g.kw = 3;
  g.pad_top = g.pad_left = g.pad_bottom = g.pad_right = 12;
  g.dilation = 12;
  return g;
}

TEST(CinSplit, BurstCostOfOneOutputTileInFourGroups) {
  TilingOptions o;  // int8 (1 B), 64-B bursts
  // co 8, rows 16, ci 16: 4 groups, one output tile.
  // input: each group's band is 16 whole planes of 256 B, contiguous: 4096 B x 4 = 16,384;
  // weights: per group 8 runs of 16 x 9 = 144 B at a stride of 576 B, 3 bursts (192 B) each:
  // 1,536 x 4 = 6,144; output: 8 planes of 256 B, contiguous: 2,048. Sum 24,576.
  EXPECT_EQ(conv_split_burst_cost(dilated(), 8, 16, 16, o), 24576u);
}

TEST(CinSplit, BurstCostReReadsInputPerChannelTileAndWeightsPerRowTile) {
  TilingOptions o;
  // co 4, rows 8, ci 32: n_co = n_row = 2, 2 groups. Input: per (co tile, row tile, group)
  // 32 whole planes (both row bands are all 16 rows) = 8,192 B: x 2 x 2 x 2 = 65,536.
  // Weights: per (co tile, group) 4 runs of 32 x 9 = 288 B (5 bursts, 320 B) = 1,280, x 2 x 2,
  // read once per row tile (x 2): 10,240. Output: 4 tiles of 4 channels x 8 rows, each a run
  // of 128 B per channel: 4 x 4 x 128 = 2,048. Sum 77,824.
  EXPECT_EQ(conv_split_burst_cost(dilated(), 4, 8, 32, o), 77824u);
}

TEST(CinSplit, MinimalTileIsOneChannelOneRowOneInputChannel) {
  TilingOptions o;
  // 64-B aligned buffers: input band 1 x 16 x 16 = 256 B x 2, weights 9 -> 64 B x 2, params
  // 8 B x 8 channels = 64 B, output row 16 -> 64 B x 2, partial sums 16 x 4 = 64 B (the last
  // buffer): 512 + 128 + 64 + 128 + 64.
  EXPECT_EQ(conv_split_min_sram_bytes(dilated(), o), 896u);
}

TEST(CinSplit, PlansOnlyWhereNoUnsplitTileFits) {
  TilingOptions o;
  const ConvGeom g = dilated();
  // The whole input (64 x 16 x 16 = 16 KiB) is one band of any row tile: 4 KiB holds no
  // unsplit tile, but split tiles fit.
  EXPECT_FALSE(plan_conv(g, 4096, o));
  const auto p = plan_conv_split(g, 4096, o);
  ASSERT_TRUE(p);
  EXPECT_GT(p->n_ci, 1);
  EXPECT_EQ(p->n_ci, int(ceil_div(g.c_in, p->ci_tile)));
  EXPECT_LE(p->sram.total_bytes, 4096u);
  EXPECT_FALSE(plan_conv_split(g, 895, o));  // below the minimal split tile (896 B)
  ConvGeom depthwise = g;
  depthwise.group = depthwise.c_out = 64;
  EXPECT_FALSE(cin_split_applies(depthwise));
  ConvGeom gemm = g;
  gemm.gemm = true;
  EXPECT_FALSE(cin_split_applies(gemm));
}

}  // namespace
}  // namespace npu::compiler
