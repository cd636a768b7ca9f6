// The tile choice between the whole-input-channel tiles and the input-channel split
// (cin_split.hpp plan_conv_layer) and the DDR cap's latency-first exception (tiling.hpp
// kOverCapSpeedup, latency_first.hpp): docs/compiler.md "Input-channel split" and "Tiling".
#include <gtest/gtest.h>

#include "backend/tiling/tiling_detail.hpp"
#include "npu/base/config_error.hpp"
#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "test_compile_graphs.hpp"
#include "npu/compiler/backend/tiling/cin_split.hpp"
#include "npu/compiler/backend/tiling/tiling.hpp"

namespace npu::compiler {
namespace {

constexpr std::uint64_t kSplitKiB = 1024;

// ResNet-18's layer3 3x3 conv: [256, 14, 14] -> 256, 3x3, stride 1, pad 1, int8.
ConvGeom layer3_conv() {
  ConvGeom g;
  g.c_in = g.c_out = 256;
  g.h_in = g.w_in = g.h_out = g.w_out = 14;
  g.kh = g.kw = 3;
  g.pad_top = g.pad_left = g.pad_bottom = g.pad_right = 1;
  return g;
}

// The edge preset's array (32 x 32 weight-stationary, 1 GHz) and a 16 B/ns DDR, time-based.
TilingOptions edge_like() {
  TilingOptions o;
  o.array.rows = o.array.cols = 32;
  o.array.dataflow = Dataflow::WeightStationary;
  o.core_period_ns = 1.0;
  o.ddr_bytes_per_ns = 16.0;
  o.cin_split = true;
  return o;
}

// Weight-stationary folds (docs/compiler.md "Tiling" table): ceil(K/R) x ceil(N/C) folds of
// 2R + C + M - 2 cycles, K = ci x 9, N = co, M = rows x 14 output pixels, per tile.
std::uint64_t ws_cycles(std::uint64_t ci, std::uint64_t co, std::uint64_t rows) {
  const std::uint64_t k = ci * 9, m = rows * 14;
  return (k + 31) / 32 * ((co + 31) / 32) * (2 * 32 + 32 + m - 2);
}

// Sum of ws_cycles over every (co, rows, ci) piece of the plan's tiling of 256 x 14 x 256.
std::uint64_t plan_cycles_by_hand(const ConvTilePlan& p) {
  std::uint64_t sum = 0;
  const int ci_tile = p.n_ci > 1 ? p.ci_tile : 256;  // unsplit: all input channels
  for (int co0 = 0; co0 < 256; co0 += p.co_tile)
    for (int r0 = 0; r0 < 14; r0 += p.rows_tile)
      for (int c0 = 0; c0 < 256; c0 += ci_tile)
        sum += ws_cycles(std::uint64_t(std::min(ci_tile, 256 - c0)), std::uint64_t(std::min(p.co_tile, 256 - co0)),
                         std::uint64_t(std::min(p.rows_tile, 14 - r0)));
  return sum;
}

TEST(SplitChoice, ASmallSramTakesTheSplitWhereItIsEstimatedClearlyFaster) {
  const ConvGeom g = layer3_conv();
  const TilingOptions o = edge_like();
  // At 32 KiB a whole-input-channel tile fits (one output channel needs a 3-row band of all 256
  // channels, 256 x 3 x 14 = 10,752 B x 2 slots, + 2,304 B of weights x 2, + 2 KiB params,
  // + outputs: about 28 KiB), but only a few output channels at a time: a few of the 32 columns.
  const auto unsplit = plan_conv(g, 32 * kSplitKiB, o);
  ASSERT_TRUE(unsplit);
  EXPECT_LT(unsplit->co_tile, 32) << unsplit->describe(g);
  EXPECT_EQ(unsplit->array_cycles, plan_cycles_by_hand(*unsplit));
  const auto chosen = plan_conv_layer(g, 32 * kSplitKiB, o, true);
  ASSERT_TRUE(chosen);
  EXPECT_GT(chosen->n_ci, 1) << chosen->describe(g);
  EXPECT_EQ(chosen->n_ci, int(ceil_div(256, chosen->ci_tile)));
  EXPECT_LE(chosen->sram.total_bytes, 32 * kSplitKiB);
  // Its array cycles by the fold formula, and the rule: at least kSplitSpeedup (1.25x) faster.
  EXPECT_EQ(chosen->array_cycles, plan_cycles_by_hand(*chosen));
  EXPECT_LE(chosen->estimated_ns * 1.25, unsplit->estimated_ns);
  // It fills the array better: more than twice the unsplit tile's columns in use.
  EXPECT_GT(std::min(chosen->co_tile, 32), 2 * unsplit->co_tile);
  // Not at a size where the split is not allowed (the smaller-SRAM plans) or not a dense Conv.
  TilingOptions no_split = o;
  no_split.cin_split = false;
  EXPECT_EQ(plan_conv_layer(g, 32 * kSplitKiB, no_split, true)->n_ci, 1);
  EXPECT_EQ(plan_conv_layer(g, 32 * kSplitKiB, o, false)->n_ci, 1);
}

TEST(SplitChoice, AmpleSramKeepsTheWholeInputChannelTile) {
  // At 1 MiB the whole layer fits one tile (input 50 KiB, weights 576 KiB): the unsplit plan is
  // within 1.25x of the lower bound (the 589,824 weight bytes at 16 B/ns = 36.9 us), so no split.
  const ConvGeom g = layer3_conv();
  const auto p = plan_conv_layer(g, 1024 * kSplitKiB, edge_like(), true);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->n_ci, 1) << p->describe(g);
}

ConvTilePlan candidate(std::uint64_t burst_cost, double ns, int co) {
  ConvTilePlan p;
  p.burst_cost_bytes = burst_cost;
  p.estimated_ns = ns;
  p.co_tile = co;
  return p;
}

TEST(SplitChoice, ATilingOverTheDdrCapIsTakenOnlyWhenItHalvesTheTime) {
  const TilingOptions o = edge_like();
  // Cap: 1.25 x the least burst cost 1,000 = 1,250 B. B moves 1,900 B (over the cap).
  const ConvTilePlan a = candidate(1000, 1000.0, 1);
  // B at 500 ns: exactly half of A's 1,000 ns: taken.
  EXPECT_EQ(tiling_detail::choose_tiling(std::vector<ConvTilePlan>{a, candidate(1900, 500.0, 2)}, o).co_tile, 2);
  // B at 501 ns: less than 2x faster: the cap holds, A is taken.
  EXPECT_EQ(tiling_detail::choose_tiling(std::vector<ConvTilePlan>{a, candidate(1900, 501.0, 2)}, o).co_tile, 1);
  // The same rule between capacities: a larger SRAM's plan at half the time replaces the kept
  // one whatever its bytes; at 501 ns it would need no more bytes.
  EXPECT_TRUE(tiling_detail::conv_plan_improves(candidate(1900, 500.0, 2), a, o));
  EXPECT_FALSE(tiling_detail::conv_plan_improves(candidate(1900, 501.0, 2), a, o));
}

}  // namespace
}  // namespace npu::compiler

namespace npu::compiler {
namespace {

TEST(SplitChoice, GemmHeadMinimalTileBytesByHand) {
  // GPT-2's head at a 4-token prompt: [4, 768] x [768, 50257], int8 (Gemmini presets). The
  // minimal tile, one output column x one row: A row 768 B x 2 slots (4 row tiles) = 1,536;
  // B column 768 B x 2 slots (50,257 column tiles) = 1,536; params 8 B x 50,257 = 402,056,
  // 64-B aligned to 402,112; output 1 B x 2 slots, the first padded to 64: 65.
  // 1,536 + 1,536 + 402,112 + 64 + 1 = 405,249 (the figure of the refusal on gemmini-8x8).
  ConvGeom g;
  g.gemm = true;
  g.c_in = 768, g.c_out = 50257;
  g.h_in = g.h_out = 4;
  g.w_in = g.w_out = 1;
  g.kh = g.kw = 1;
  TilingOptions o;
  EXPECT_EQ(conv_min_sram_bytes(g, o), 405249u);
  // Without the params region (the tile's own buffers): 1,536 + 1,536 + 64 + 1.
  o.reserved_param_bytes_per_channel = 0;
  EXPECT_EQ(conv_min_sram_bytes(g, o), 3137u);
}

TEST(SplitChoice, AWideGemmRefusedForItsParamsRegionSaysSo) {
  // [1, 16, 2, 2] -> global pool -> Gemm to 4,096 outputs at 16 KiB: the params region is
  // 8 B x 4,096 = 32,768 B, more than the SRAM; the tile itself (16-B rows and columns) is tiny.
  testing::GraphBuilder b("wide");
  b.output(b.global_avg_pool_flatten_gemm("head", b.input("x", {1, 16, 2, 2}), 4096));
  try {
    compile(b.g, testing::edge_like_hw(16 * kSplitKiB), builtin_strategy("none"));
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("layer 'head.fc' (Gemm) cannot fit even one minimal tile in SRAM"), std::string::npos) << m;
    EXPECT_NE(m.find("(32768 of them are the params region, 8 B reserved for each of its 4096 output channels"),
              std::string::npos)
        << m;
  }
}

}  // namespace
}  // namespace npu::compiler
