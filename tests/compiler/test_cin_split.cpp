// The input-channel split (cin_split.hpp): its DDR burst cost and minimal tile by hand, and
// that it offers a plan exactly where plan_conv has none.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

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

// The reference below counts what the DMA touches, descriptor by descriptor: a descriptor's
// runs (one per channel), runs that meet merged into one span, each span the whole bursts
// ceil(((offset mod B) + length) / B) it crosses. Nothing of the tiler's periods or floor sums.
std::uint64_t descriptor_bursts(std::vector<std::pair<std::uint64_t, std::uint64_t>> runs, std::uint64_t B) {
  std::sort(runs.begin(), runs.end());
  std::uint64_t bytes = 0;
  for (std::size_t i = 0; i < runs.size();) {
    std::uint64_t start = runs[i].first, end = runs[i].first + runs[i].second;
    for (++i; i < runs.size() && runs[i].first == end; ++i) end += runs[i].second;
    bytes += ((start % B + (end - start)) + B - 1) / B * B;
  }
  return bytes;
}

// Split loop order: per (co tile, row tile, group) one input band LOAD and one weight LOAD;
// one output STORE per (co tile, row tile), [c, h, w] layouts, 1-byte elements.
std::uint64_t split_cost_by_descriptor(const ConvGeom& g, int co, int rows, int ci, std::uint64_t B) {
  const std::uint64_t per_ci = std::uint64_t(g.kh) * g.kw, per_co = std::uint64_t(g.c_in) * per_ci;
  const std::uint64_t plane_in = std::uint64_t(g.h_in) * g.w_in, plane_out = std::uint64_t(g.h_out) * g.w_out;
  std::uint64_t total = 0;
  for (int c0 = 0; c0 < g.c_out; c0 += co) {
    const int cot = std::min(co, g.c_out - c0);
    for (int r0 = 0; r0 < g.h_out; r0 += rows) {
      const RowBand band = input_band(g, r0, std::min(rows, g.h_out - r0));
      for (int i0 = 0; i0 < g.c_in; i0 += ci) {
        const int cit = std::min(ci, g.c_in - i0);
        std::vector<std::pair<std::uint64_t, std::uint64_t>> in, w;
        for (int c = i0; c < i0 + cit; ++c)
          in.push_back({c * plane_in + std::uint64_t(band.first_row) * g.w_in, std::uint64_t(band.rows) * g.w_in});
        for (int o = c0; o < c0 + cot; ++o) w.push_back({o * per_co + i0 * per_ci, cit * per_ci});
        total += descriptor_bursts(in, B) + descriptor_bursts(w, B);
      }
      std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
      const int rt = std::min(rows, g.h_out - r0);
      for (int o = c0; o < c0 + cot; ++o) out.push_back({o * plane_out + std::uint64_t(r0) * g.w_out, std::uint64_t(rt) * g.w_out});
      total += descriptor_bursts(out, B);
    }
  }
  return total;
}

TEST(CinSplit, BurstCostEqualsTheBurstsEveryDescriptorTouches) {
  // Odd sizes (misaligned runs, short last tiles) over every tiling of small layers.
  std::mt19937 rng(29);
  for (int trial = 0; trial < 12; ++trial) {
    ConvGeom g;
    g.c_in = 2 + int(rng() % 13), g.c_out = 1 + int(rng() % 11);
    g.kh = g.kw = 1 + 2 * int(rng() % 2);
    g.h_in = g.w_in = 3 + int(rng() % 9);
    g.pad_top = g.pad_bottom = g.pad_left = g.pad_right = g.kh / 2;
    g.h_out = g.h_in, g.w_out = g.w_in;
    TilingOptions o;
    o.burst_bytes = trial % 2 == 0 ? 64 : 32;
    for (int ci = 1; ci <= g.c_in; ++ci)
      for (int co = 1; co <= g.c_out; co += 2)
        for (int rows = 1; rows <= g.h_out; rows += 3)
          ASSERT_EQ(conv_split_burst_cost(g, co, rows, ci, o), split_cost_by_descriptor(g, co, rows, ci, 64 - 32 * (trial % 2)))
              << "trial " << trial << " c_in " << g.c_in << " c_out " << g.c_out << " k " << g.kh << " h " << g.h_in
              << " tile co " << co << " rows " << rows << " ci " << ci;
  }
}

}  // namespace
}  // namespace npu::compiler
