// plan_conv memoised per compile() (conv_plan_cache.hpp; issue 29 item 4): the cached plan must
// be plan_conv's, field for field, whatever order the SRAM sizes are asked in (a smaller size's
// candidates are a larger size's list filtered), and whatever the SRAM banks and capacity
// that place the buffers; the key must tell apart every option the tiler reads.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "backend/codegen/program_size.hpp"
#include "npu/compiler/backend/lowering/lowering.hpp"
#include "npu/compiler/backend/tiling/cin_split.hpp"
#include "npu/compiler/backend/tiling/conv_plan_cache.hpp"
#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/frontend/zoo/zoo.hpp"
#include "npu/compiler/transforms/pass_manager.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace npu::compiler {
namespace {

constexpr std::uint64_t KiB = 1024;
const std::string kCacheEdge = std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml";

// Every field of a ConvTilePlan (and its layout's offsets), as text: equal texts, equal plans.
std::string plan_text(const std::optional<ConvTilePlan>& p) {
  if (!p) return "none";
  const ConvSramLayout& l = p->sram;
  return std::to_string(int(p->order)) + " " + std::to_string(p->co_tile) + " " + std::to_string(p->rows_tile) + " " +
         std::to_string(p->n_co) + " " + std::to_string(p->n_row) + " " + std::to_string(p->steps) + " " +
         std::to_string(p->ci_tile) + " " + std::to_string(p->n_ci) + " " + std::to_string(p->input_read_bytes) + " " +
         std::to_string(p->weight_read_bytes) + " " + std::to_string(p->burst_cost_bytes) + " " +
         std::to_string(p->array_cycles) + " " + std::to_string(p->dma_count) + " " +
         std::to_string(std::hash<double>{}(p->estimated_ns)) + " | " + std::to_string(l.in[0]) + " " +
         std::to_string(l.in[1]) + " " + std::to_string(l.w[0]) + " " + std::to_string(l.w[1]) + " " +
         std::to_string(l.params) + " " + std::to_string(l.in_scale) + " " + std::to_string(l.res[0]) + " " +
         std::to_string(l.res[1]) + " " + std::to_string(l.out[0]) + " " + std::to_string(l.out[1]) + " " +
         std::to_string(l.acc) + " " + std::to_string(l.prologue) + " " + std::to_string(l.rope[0]) + " " +
         std::to_string(l.rope[1]) + " " + std::to_string(l.total_bytes) + " " + std::to_string(l.bank_exclusive);
}

// The CONV/GEMM layers of a zoo model under `strategy`, with the options code generation
// tiles each with (conv_layer_options over the edge preset's tiling options).
struct ConvCase {
  std::string layer;
  ConvGeom geom;
  TilingOptions opt;
};

std::vector<ConvCase> conv_cases(const std::string& model, const std::string& strategy, const HwConfig& hw) {
  Graph graph = build_zoo_model(model);
  PassContext ctx;
  ctx.model = graph.name;
  ctx.hw = &hw;
  PassManager::from_names(builtin_strategy(strategy).passes).run(graph, ctx);
  const LoweredGraph lg = lower(graph, hw);
  TilingOptions t = hardware_tiling_options(hw, TilingOptions{});
  t.act_bytes = lg.act_bytes;
  std::vector<ConvCase> out;
  for (const LayerSpec& L : lg.layers)
    if (L.kind == LayerKind::Conv || L.kind == LayerKind::Gemm)
      out.push_back({L.name, L.geom, codegen::conv_layer_options(t, lg.act_bytes, L)});
  return out;
}

// One cache over every layer and the SRAM sizes 1 MiB .. 64 KiB asked in `caps` order (each
// size's options placing the buffers in that size, as compile() does): every answer equals
// plan_conv without the cache.
void expect_cache_equals_plan_conv(const std::vector<ConvCase>& cases, const std::vector<std::uint64_t>& caps,
                                   std::uint64_t list_bytes = 0) {
  ConvPlanCache cache(list_bytes);
  for (std::uint64_t cap : caps)
    for (const ConvCase& c : cases) {
      TilingOptions o = c.opt;
      o.sram_capacity_bytes = cap;
      const std::optional<ConvTilePlan> want = plan_conv(c.geom, cap, o);  // o.conv_plans is nullptr
      o.conv_plans = &cache;
      ASSERT_EQ(plan_text(cache.plan(c.geom, cap, o)), plan_text(want)) << c.layer << " at " << cap / KiB << " KiB";
      ASSERT_EQ(plan_text(plan_conv(c.geom, cap, o)), plan_text(want)) << c.layer << " (plan_conv with the cache)";
    }
  // Each layer's list is built once when the largest size comes first; every later call hits.
  EXPECT_GT(cache.hits(), 0u);
}

TEST(ConvPlanCache, EqualsPlanConvOnEveryZooConvAtEveryLadderSizeInAnyOrder) {
  const HwConfig hw = load_hw_config(kCacheEdge);
  const std::vector<std::uint64_t> down = {1024 * KiB, 512 * KiB, 256 * KiB, 128 * KiB, 64 * KiB};
  const std::vector<std::uint64_t> up(down.rbegin(), down.rend());  // lists rebuilt as the size grows
  const std::vector<std::uint64_t> mixed = {256 * KiB, 64 * KiB, 1024 * KiB, 128 * KiB, 512 * KiB, 256 * KiB};
  for (const std::string model : {"resnet50", "mobilenet_v2", "yolov5s"})
    for (const std::string strategy : {"none", "residual"}) {
      SCOPED_TRACE(model + " " + strategy);
      const std::vector<ConvCase> cases = conv_cases(model, strategy, hw);
      ASSERT_GT(cases.size(), 10u);
      expect_cache_equals_plan_conv(cases, down);
      expect_cache_equals_plan_conv(cases, up);
      expect_cache_equals_plan_conv(cases, mixed);
      expect_cache_equals_plan_conv(cases, mixed, 1024 * KiB);  // lists at 1 MiB whichever size asks
    }
}

TEST(ConvPlanCache, SplitChoiceEqualsTheUncachedSearchAndIsPlacedInTheCallersSram) {
  // The input-channel split of every dense ResNet-50 conv at 64 .. 256 KiB (where splits fit),
  // asked twice per size: the second answer comes from the memo. With the SRAM's banks (which
  // only place the buffers) changed between the asks, the memoised choice must still equal the
  // uncached search field for field, layout offsets included.
  const HwConfig hw = load_hw_config(kCacheEdge);
  const std::vector<ConvCase> cases = conv_cases("resnet50", "residual", hw);
  ConvPlanCache cache;
  int splits = 0, spread = 0;
  for (std::uint64_t cap : {64 * KiB, 128 * KiB, 256 * KiB})
    for (const ConvCase& c : cases) {
      if (!cin_split_applies(c.geom)) continue;
      // Eight contiguous banks of cap / 2 (4 x cap in all) spread the buffers a bank each
      // (place_sram_buffers); one bank packs them: the same tiles, other offsets.
      for (int banks : {8, 1}) {
        TilingOptions o = c.opt;
        o.sram_capacity_bytes = 4 * cap;
        o.sram_banks = banks;
        o.sram_interleave_bytes = 0;
        const std::optional<ConvTilePlan> want = plan_conv_split(c.geom, cap, o);  // o.conv_plans is nullptr
        o.conv_plans = &cache;
        ASSERT_EQ(plan_text(plan_conv_split(c.geom, cap, o)), plan_text(want)) << c.layer << " at " << cap / KiB << " KiB";
        splits += want.has_value() ? 1 : 0;
        spread += want && want->sram.bank_exclusive ? 1 : 0;
      }
    }
  EXPECT_GT(splits, 20);  // the check saw real split plans, not only "none"
  EXPECT_GT(spread, 0);    // and layouts that differ between the two asks
}

TEST(ConvPlanCache, ListsAreSharedAcrossSizesAndBuiltAgainOnlyForALargerSize) {
  // One 3x3 conv, 64 -> 64 channels over 56x56: asked at 1 MiB, then 512 and 256 KiB: one list;
  // then 2 MiB: a second (a larger size's candidates are not in the 1 MiB list).
  ConvGeom g;
  g.c_in = g.c_out = 64;
  g.h_in = g.w_in = g.h_out = g.w_out = 56;
  g.kh = g.kw = 3;
  g.pad_top = g.pad_left = g.pad_bottom = g.pad_right = 1;
  ConvPlanCache cache;
  TilingOptions o;
  o.conv_plans = &cache;
  for (std::uint64_t cap : {1024 * KiB, 512 * KiB, 256 * KiB}) EXPECT_TRUE(plan_conv(g, cap, o).has_value());
  EXPECT_EQ(cache.lists_built(), 1u);
  EXPECT_EQ(cache.hits(), 2u);
  EXPECT_TRUE(plan_conv(g, 2048 * KiB, o).has_value());
  EXPECT_EQ(cache.lists_built(), 2u);
  // Below the minimal tile (64 ch x 1 row: 3 x 56 x 64 B input band + 64 x 576 B weights + ...):
  // nullopt, as plan_conv, without a list.
  EXPECT_FALSE(plan_conv(g, 1 * KiB, o).has_value());
  EXPECT_EQ(cache.lists_built(), 2u);
  // Built for 1 MiB from the start (compile() gives the configured SRAM): 256 KiB first, then
  // 1 MiB, share one list.
  ConvPlanCache at_1m(1024 * KiB);
  o.conv_plans = &at_1m;
  const std::optional<ConvTilePlan> small = plan_conv(g, 256 * KiB, o);
  EXPECT_TRUE(plan_conv(g, 1024 * KiB, o).has_value());
  EXPECT_EQ(at_1m.lists_built(), 1u);
  EXPECT_EQ(at_1m.hits(), 1u);
  TilingOptions plain = o;
  plain.conv_plans = nullptr;
  ASSERT_TRUE(small.has_value());
  EXPECT_EQ(small->co_tile, plan_conv(g, 256 * KiB, plain)->co_tile);
  EXPECT_EQ(small->rows_tile, plan_conv(g, 256 * KiB, plain)->rows_tile);
}

TEST(ConvPlanCache, KeyTellsApartEveryOptionTheTilerReadsAndNotThePlacement) {
  ConvGeom g;
  g.c_in = g.c_out = 32;
  g.h_in = g.w_in = g.h_out = g.w_out = 28;
  const HwConfig hw = load_hw_config(kCacheEdge);
  const TilingOptions base = hardware_tiling_options(hw, TilingOptions{});
  const std::string k = conv_plan_cost_key(g, base);
  const std::vector<std::function<void(ConvGeom&, TilingOptions&)>> changes = {
      [](ConvGeom& x, TilingOptions&) { x.c_in = 16; }, [](ConvGeom& x, TilingOptions&) { x.w_out = 27; },
      [](ConvGeom& x, TilingOptions&) { x.stride_w = 2; }, [](ConvGeom& x, TilingOptions&) { x.pad_right = 1; },
      [](ConvGeom& x, TilingOptions&) { x.group = 2; }, [](ConvGeom& x, TilingOptions&) { x.gemm = true; },
      [](ConvGeom& x, TilingOptions&) { x.dilation = 2; }, [](ConvGeom&, TilingOptions& o) { o.act_bytes = 2; },
      [](ConvGeom&, TilingOptions& o) { o.residual = true; }, [](ConvGeom&, TilingOptions& o) { o.batch = 2; },
      [](ConvGeom&, TilingOptions& o) { o.dual_gemm = true; }, [](ConvGeom&, TilingOptions& o) { o.in_scale = true; },
      [](ConvGeom&, TilingOptions& o) { o.rope_row_bytes = 8; }, [](ConvGeom&, TilingOptions& o) { o.co_multiple = 4; },
      [](ConvGeom&, TilingOptions& o) { o.align_bytes = 32; }, [](ConvGeom&, TilingOptions& o) { o.burst_bytes = 32; },
      [](ConvGeom&, TilingOptions& o) { o.accumulator_bytes = 4096; },
      [](ConvGeom&, TilingOptions& o) { o.traffic_tolerance = 0.5; },
      [](ConvGeom&, TilingOptions& o) { o.array.rows = 8; },
      [](ConvGeom&, TilingOptions& o) { o.array.dataflow = Dataflow::OutputStationary; },
      [](ConvGeom&, TilingOptions& o) { o.core_period_ns *= 2; },
      [](ConvGeom&, TilingOptions& o) { o.dma.sustained_gbps *= 2; },
      [](ConvGeom&, TilingOptions& o) { o.max_traffic_over_min = 0.5; },
      [](ConvGeom&, TilingOptions& o) { o.time_tie_tolerance = 0.05; },
      [](ConvGeom&, TilingOptions& o) { o.reserved_param_bytes_per_channel = 12; }};
  for (std::size_t i = 0; i < changes.size(); ++i) {
    ConvGeom g2 = g;
    TilingOptions o2 = base;
    changes[i](g2, o2);
    EXPECT_NE(conv_plan_cost_key(g2, o2), k) << "change " << i;
  }
  // The placement fields and the cache pointer are not part of the key (the layout is redone).
  TilingOptions p = base;
  p.sram_capacity_bytes = 512 * KiB;
  p.sram_banks = 8;
  p.sram_interleave_bytes = 256;
  ConvPlanCache cache;
  p.conv_plans = &cache;
  EXPECT_EQ(conv_plan_cost_key(g, p), k);
}

}  // namespace
}  // namespace npu::compiler
