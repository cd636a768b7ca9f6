// The tiler's DDR burst cost counts the bursts a strided run really touches: a run of L bytes
// starting at byte offset o of a burst-aligned tensor touches ceil(((o mod B) + L) / B) bursts
// of B bytes (tiling_detail::span_bursts, runs_cost, tiled_runs_cost; conv_burst_cost).
// Every expected value is derived by hand (arithmetic in the comments) or from the formula
// applied run by run in a plain loop (an independent reference for the periodic sums).
#include <gtest/gtest.h>

#include <cstdint>

#include "backend/tiling/tiling_detail.hpp"
#include "npu/compiler/backend/tiling/tiling.hpp"

namespace npu::compiler {
namespace {

using tiling_detail::runs_cost;
using tiling_detail::span_bursts;
using tiling_detail::tiled_runs_cost;

TEST(BurstSpan, AMisalignedRunTouchesTheBurstsItCrosses) {
  EXPECT_EQ(span_bursts(0, 56, 64), 64u);     // 0 + 56 <= 64: one burst
  EXPECT_EQ(span_bursts(8, 56, 64), 64u);     // 8 + 56 = 64: still one
  EXPECT_EQ(span_bursts(16, 56, 64), 128u);   // 16 + 56 = 72: two
  EXPECT_EQ(span_bursts(784, 56, 64), 128u);  // 784 mod 64 = 16: two
  EXPECT_EQ(span_bursts(48, 200, 64), 256u);  // 48 + 200 = 248: four
  EXPECT_EQ(span_bursts(5, 0, 64), 0u);       // nothing moved
}

TEST(BurstSpan, StridedRunsRepeatWithTheirOffsetWithinABurst) {
  // 56-B runs one per 784 B (a 28 x 28 int8 plane): offsets mod 64 = 16 k mod 64 = 0, 16, 32,
  // 48, 0, ... -> 1, 2, 2, 2 bursts, period 4.
  EXPECT_EQ(runs_cost(56, 4, 784, 64), 7u * 64u);
  EXPECT_EQ(runs_cost(56, 8, 784, 64), 14u * 64u);
  EXPECT_EQ(runs_cost(56, 9, 784, 64), 15u * 64u);  // the 9th at 6272 = 98 x 64: one burst
  // From byte 56 (the next row pair): offsets 56, 8, 24, 40 -> 2, 1, 2, 2.
  EXPECT_EQ(runs_cost(56, 4, 784, 64, 56), 7u * 64u);
  // Contiguous (stride = run): one span of 4 x 56 = 224 B from byte 16: 240 -> 4 bursts.
  EXPECT_EQ(runs_cost(56, 4, 56, 64, 16), 4u * 64u);
  // Tiles of 2 whole planes of 784 B (stride = run: one span per tile): tile k at 1568 k,
  // 1568 mod 64 = 32: offsets 0, 32, 0 -> ceil(1568/64) = 25, ceil(1600/64) = 25, 25.
  EXPECT_EQ(tiled_runs_cost(784, 2, 3, 784, 64, 0), 75u * 64u);
  // Tiles of 2 strided runs: the same as the 6 runs in a row.
  EXPECT_EQ(tiled_runs_cost(56, 2, 3, 784, 64, 0), runs_cost(56, 6, 784, 64, 0));
}

TEST(BurstSpan, PeriodicSumsEqualTheRunByRunSum) {
  for (std::uint64_t run : {1u, 7u, 56u, 64u, 100u, 196u})
    for (std::uint64_t stride : {49u, 64u, 196u, 784u, 1000u, 3136u})
      for (std::uint64_t runs : {0u, 1u, 3u, 17u, 130u})
        for (std::uint64_t offset : {0u, 8u, 56u, 1234u}) {
          if (stride < run) continue;
          std::uint64_t want = 0;
          if (runs == 1 || stride == run) {
            want = span_bursts(offset, run * runs, 64);
          } else {
            for (std::uint64_t k = 0; k < runs; ++k) want += (((offset + k * stride) % 64 + run + 63) / 64) * 64;
          }
          EXPECT_EQ(runs_cost(run, runs, stride, 64, offset), want) << run << " " << stride << " " << runs << " " << offset;
        }
}

TEST(BurstSpan, FloorSumEqualsTheTermByTermSum) {
  // sum_{k<n} floor((a k + c) / m) term by term, against the closed form; one hand value:
  // n = 4, m = 3, a = 2, c = 1: floor(1/3) + floor(3/3) + floor(5/3) + floor(7/3) = 0+1+1+2 = 4.
  EXPECT_EQ(tiling_detail::floor_sum(4, 3, 2, 1), 4u);
  for (std::uint64_t m : {1u, 3u, 32u, 64u, 100u})
    for (std::uint64_t a : {0u, 1u, 7u, 64u, 784u, 100003u})
      for (std::uint64_t c : {std::uint64_t(0), std::uint64_t(5), std::uint64_t(63), std::uint64_t(12345678901)})
        for (std::uint64_t n : {0u, 1u, 2u, 65u, 1000u}) {
          std::uint64_t want = 0;
          for (std::uint64_t k = 0; k < n; ++k) want += (a * k + c) / m;
          EXPECT_EQ(tiling_detail::floor_sum(n, m, a, c), want) << n << " " << m << " " << a << " " << c;
        }
}

TEST(BurstSpan, ClosedFormRunsEqualTheRunByRunSumOnAnyBurstAndFarOffsets) {
  // progression_bursts (closed form) against the run-by-run formula, for bursts of 32, 64 and
  // 256 B (DDR4 x8 BL8 = 64 B; HBM2 pseudo-channel BL4 = 32 B), runs longer than a burst and
  // offsets past 4 GiB (a tensor deep in a large DDR).
  for (int burst : {32, 64, 256})
    for (std::uint64_t run : {1u, 31u, 64u, 300u, 4097u})
      for (std::uint64_t step : {0u, 1u, 64u, 100u, 3136u, 50176u})
        for (std::uint64_t offset : {std::uint64_t(0), std::uint64_t(17), std::uint64_t(5000000013)})
          for (std::uint64_t n : {0u, 1u, 9u, 513u}) {
            std::uint64_t want = 0;
            for (std::uint64_t k = 0; k < n; ++k) want += span_bursts(offset + k * step, run, burst);
            EXPECT_EQ(tiling_detail::progression_bursts(n, step, run, burst, offset), want)
                << burst << " " << run << " " << step << " " << offset << " " << n;
          }
}

TEST(BurstSpan, ConvBurstCostCountsMisalignedRowBands) {
  // 1x1 conv, [2, 28, 28] -> [2, 28, 28], int8, 64-B bursts; tile 2 channels x 2 rows: 14 row
  // bands. Input band k of channel c: one 56-B run at 784 c + 56 k, offset mod 64 =
  // (16 c - 8 k) mod 64; one burst when that is 0 or 8, else two.
  //   c = 0: 0, 56, 48, 40, 32, 24, 16, 8, 0, 56, ... -> one burst at k = 0, 7, 8: 3 + 11 x 2 = 25
  //   c = 1: 16, 8, 0, 56, 48, 40, 32, 24, 16, 8, 0, ... -> one at k = 1, 2, 9, 10: 4 + 10 x 2 = 24
  // Input 49 bursts = 3136 B (one co tile: loaded once). Weights 2 x 2 = 4 B: 64 B. The output
  // tiles have the same runs as the input: 3136 B. Sum 6336 (counting 64 B per run: 3648).
  ConvGeom g;
  g.c_in = g.c_out = 2;
  g.h_in = g.w_in = g.h_out = g.w_out = 28;
  g.kh = g.kw = 1;
  TilingOptions o;
  ASSERT_EQ(o.act_bytes, 1);
  ASSERT_EQ(o.burst_bytes, 64);
  EXPECT_EQ(conv_burst_cost(g, LoopOrder::WeightsResident, 2, 2, o), 6336u);
}

TEST(BurstSpan, AComputedGemmBIsReadRowByRowPerOutputColumnTile) {
  // Attention's P x V for one head at context 302: A [1, 302], B = V [302, 64] computed at run
  // time, read row-major (b_row_major). Tiles of 32 columns: each of the 302 rows gives a 32-B
  // run inside one 64-B burst, per tile 302 bursts, two tiles 2 x 302 x 64 = 38,656 B; one tile
  // of 64 columns reads each row's burst once, 302 x 64 = 19,328 B (V's bytes). A, 302 B in
  // 5 bursts (320 B), and the output (1 x 64 B: one burst) are the same for both.
  ConvGeom g;
  g.gemm = true;
  g.b_row_major = true;
  g.c_in = 302, g.h_in = g.h_out = 1, g.w_in = g.w_out = 1, g.c_out = 64;
  TilingOptions o;
  const std::uint64_t a_and_out = 320 + 64;
  EXPECT_EQ(conv_burst_cost(g, LoopOrder::WeightsResident, 64, 1, o), 19328u + a_and_out);
  // Two output tiles of 32 B each: the output is 2 runs of 32 B within one burst: 2 x 64.
  EXPECT_EQ(conv_burst_cost(g, LoopOrder::WeightsResident, 32, 1, o), 38656u + 320 + 2 * 64);
  // Pre-tiled weights (a constant B): one contiguous 302 x 32 = 9,664-B block per tile, 151
  // bursts each (9,664 = 151 x 64), 19,328 B in all whichever the tile.
  g.b_row_major = false;
  EXPECT_EQ(conv_burst_cost(g, LoopOrder::WeightsResident, 32, 1, o), 19328u + 320 + 2 * 64);
}

}  // namespace
}  // namespace npu::compiler
