// Tiling and loop order of a Conv over NCDHW (conv3d_plan.hpp).
#include "npu/compiler/backend/tiling/conv3d_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "backend/tiling/tiling_detail.hpp"
#include "npu/compiler/backend/tiling/cin_split.hpp"

namespace npu::compiler {

using namespace tiling_detail;

const char* to_string(DepthOrder o) {
  switch (o) {
    case DepthOrder::WeightsResident: return "weights-resident-depth";
    case DepthOrder::InputResident: return "input-resident-depth";
    case DepthOrder::PerTap: return "per-tap";
  }
  return "?";
}

namespace {

// The figures every order shares: e bytes per element, kh x kw taps, T (od, kd) pairs.
struct Depth3 {
  const ConvGeom& g;
  const DepthGeom& d;
  const TilingOptions& opt;
  std::uint64_t e, taps, T;
};

// Burst cost of one kd slice of the weights for cot output x cit input channels. DDR layout
// kd-major [kd][co][ci][kh kw] (ddr_image.cpp put_conv3d_weights): each output channel's
// cit x kh x kw is one run, the whole slice one run when cit = c_in.
std::uint64_t weight_slice_burst(const Depth3& x, std::uint64_t cot, std::uint64_t cit) {
  const std::uint64_t tb = x.taps * x.e;
  return runs_cost(cit * tb, cot, std::uint64_t(x.g.c_in) * tb, x.opt.burst_bytes);
}

// Burst cost of one depth slice's bands over all row tiles, cit channels (channel stride D H W).
std::uint64_t band_burst(const Depth3& x, int rows_tile, std::uint64_t cit) {
  const std::uint64_t chan = std::uint64_t(x.d.d_in) * x.g.h_in * x.g.w_in * x.e;
  std::uint64_t cost = 0;
  for (int r0 = 0; r0 < x.g.h_out; r0 += rows_tile) {
    const int rows = input_band(x.g, r0, std::min(rows_tile, x.g.h_out - r0)).rows;
    cost += runs_cost(std::uint64_t(rows) * x.g.w_in * x.e, cit, chan, x.opt.burst_bytes);
  }
  return cost;
}

// Burst cost of the STOREs (and residual LOADs) of every output tile of every depth slice.
std::uint64_t output_burst(const Depth3& x, int co_tile, int rows_tile) {
  const std::uint64_t chan = std::uint64_t(x.d.d_out) * x.g.h_out * x.g.w_out * x.e;
  std::uint64_t one = 0;
  for (const auto& [cot, cc] : pieces(x.g.c_out, co_tile))
    for (const auto& [hot, rc] : pieces(x.g.h_out, rows_tile))
      one += cc * rc * runs_cost(hot * x.g.w_out * x.e, cot, chan, x.opt.burst_bytes);
  return std::uint64_t(x.d.d_out) * one * (x.opt.residual ? 2 : 1);
}

// The SRAM layout of a weights- or input-resident-depth tiling, and the kd slice stride.
ConvSramLayout resident_layout(const Depth3& x, DepthOrder o, int co, int rows, std::uint64_t& stride) {
  const ConvGeom& g = x.g;
  const std::uint64_t band = std::uint64_t(g.c_in) * max_band_rows(g, rows) * g.w_in * x.e;
  const std::uint64_t wk = std::uint64_t(co) * g.c_in * x.taps * x.e;
  const std::int64_t n_co = ceil_div(g.c_out, co), n_row = ceil_div(g.h_out, rows);
  ConvBuffers b;
  b.out_bytes = std::uint64_t(co) * rows * g.w_out * x.e;
  b.acc_bytes = std::uint64_t(co) * rows * g.w_out * isa::kAccElemBytes;
  b.out_changes = n_co * n_row * x.d.d_out > 1;
  if (o == DepthOrder::WeightsResident) {
    stride = align_up(wk, x.opt.align_bytes);
    b.in_bytes = band, b.w_bytes = std::uint64_t(x.d.kd) * stride;
    b.in_changes = true, b.w_changes = n_co > 1;
  } else {
    stride = align_up(band, x.opt.align_bytes);
    b.in_bytes = std::uint64_t(x.d.kd) * stride, b.w_bytes = wk;
    b.in_changes = n_row * x.d.d_out > 1, b.w_changes = true;
  }
  return place_conv_buffers(g, b, x.opt);
}

// The plan of one tiling: the layer's bytes, burst cost, array cycles, steps, estimate.
Conv3dPlan depth_plan(const Depth3& x, DepthOrder o, int co, int rows, int ci, const ConvSramLayout& l,
                      std::uint64_t stride) {
  const ConvGeom& g = x.g;
  Conv3dPlan q;
  q.order = o, q.slice_stride = stride;
  ConvTilePlan& p = q.tile;
  p.order = LoopOrder::WeightsResident;  // unused for a depth: q.order says the order
  p.co_tile = co, p.rows_tile = rows, p.ci_tile = ci, p.sram = l;
  p.n_co = int(ceil_div(g.c_out, co)), p.n_row = int(ceil_div(g.h_out, rows)), p.n_ci = int(ceil_div(g.c_in, ci));
  p.steps = int(std::uint64_t(p.n_co) * p.n_row * p.n_ci * x.T);
  const std::uint64_t in_pass = std::uint64_t(g.c_in) * band_rows_total(g, rows) * g.w_in * x.e * x.T;
  const std::uint64_t wk = std::uint64_t(g.c_out) * g.c_in * x.taps * x.e;
  const bool wr = o == DepthOrder::WeightsResident;
  p.input_read_bytes = (o == DepthOrder::InputResident ? 1 : std::uint64_t(p.n_co)) * in_pass;
  p.weight_read_bytes = wr ? wk * std::uint64_t(x.d.kd) : std::uint64_t(p.n_row) * x.T * wk;
  std::uint64_t in_cost = 0, w_cost = 0, cycles = 0;
  for (const auto& [cit, count] : pieces(g.c_in, ci)) {
    in_cost += count * band_burst(x, rows, cit);
    for (const auto& [cot, cc] : pieces(g.c_out, co)) w_cost += cc * count * weight_slice_burst(x, cot, cit);
    ConvGeom part = g;
    part.c_in = int(cit);
    cycles += count * conv_array_cycles(part, co, rows, x.opt.array, x.opt.vector_lanes);
  }
  in_cost *= (o == DepthOrder::InputResident ? 1 : std::uint64_t(p.n_co)) * x.T;
  w_cost *= wr ? std::uint64_t(x.d.kd) : std::uint64_t(p.n_row) * x.T;
  p.burst_cost_bytes = in_cost + w_cost + output_burst(x, co, rows);
  p.array_cycles = cycles * x.T;
  if (x.opt.time_based()) {
    const double compute_ns = double(p.array_cycles) * x.opt.core_period_ns;
    const double memory_ns = double(p.burst_cost_bytes) / x.opt.ddr_bytes_per_ns;
    const std::uint64_t band = std::uint64_t(ci) * max_band_rows(g, rows) * g.w_in * x.e;
    const std::uint64_t wtile = std::uint64_t(co) * ci * x.taps * x.e;
    const std::uint64_t first = wr ? band + wtile * x.d.kd : o == DepthOrder::InputResident ? band * x.d.kd + wtile
                                                                                              : band + wtile;
    q.tile.estimated_ns = plan_estimate_ns(compute_ns, memory_ns, first, p.steps, x.opt);
  }
  return q;
}

// Every tiling of order o that fits `sram_bytes` (the accumulator too).
std::vector<Conv3dPlan> fitting(const Depth3& x, DepthOrder o, std::uint64_t sram_bytes) {
  std::vector<Conv3dPlan> out;
  const std::vector<int> co_tiles = ceil_splits(x.g.c_out), row_tiles = ceil_splits(x.g.h_out);
  const std::vector<int> ci_tiles = o == DepthOrder::PerTap ? ceil_splits(x.g.c_in) : std::vector<int>{x.g.c_in};
  for (int ci : ci_tiles)
    for (int co : co_tiles)
      for (int rows : row_tiles) {
        if (!fits_accumulator(x.g, co, rows, x.opt)) continue;
        std::uint64_t stride = 0;
        const ConvSramLayout l = o == DepthOrder::PerTap ? conv_split_sram_layout(x.g, co, rows, ci, x.opt)
                                                         : resident_layout(x, o, co, rows, stride);
        if (l.total_bytes <= sram_bytes) out.push_back(depth_plan(x, o, co, rows, ci, l, stride));
      }
  return out;
}

// choose_tiling (tiling.hpp) over plans of one order.
Conv3dPlan choose(const std::vector<Conv3dPlan>& fits, const TilingOptions& opt) {
  std::vector<ConvTilePlan> tiles;
  for (const Conv3dPlan& q : fits) tiles.push_back(q.tile);
  const ConvTilePlan best = choose_tiling(tiles, opt);
  for (const Conv3dPlan& q : fits)
    if (q.tile.co_tile == best.co_tile && q.tile.rows_tile == best.rows_tile && q.tile.ci_tile == best.ci_tile) return q;
  return fits.front();  // not reached: choose_tiling returns one of `tiles`
}

std::string order_figures(const std::optional<Conv3dPlan>& q, DepthOrder o) {
  if (!q) return fmt::format("{}: does not fit", to_string(o));
  return fmt::format("{}: burst DDR {} B (weights {} B, input {} B)", to_string(o), q->tile.burst_cost_bytes,
                     q->tile.weight_read_bytes, q->tile.input_read_bytes);
}

}  // namespace

Conv3dChoice plan_conv3d(const ConvGeom& g, const DepthGeom& d, std::uint64_t sram_bytes, const TilingOptions& opt) {
  const DepthOrderPolicy policy = opt.conv3d_order;
  const Depth3 x{g, d, opt, std::uint64_t(opt.act_bytes), std::uint64_t(g.kh) * g.kw, d.taps_run()};
  Conv3dChoice c;
  const DepthOrder orders[3] = {DepthOrder::WeightsResident, DepthOrder::InputResident, DepthOrder::PerTap};
  for (DepthOrder o : orders) {
    const bool allowed = policy == DepthOrderPolicy::Auto || int(policy) - 1 == int(o);
    if (!allowed) continue;
    const std::vector<Conv3dPlan> fits = fitting(x, o, sram_bytes);
    if (fits.empty()) continue;
    c.best[int(o)] = choose(fits, opt);
    // Lowest burst-rounded DDR bytes; ties keep the earlier order (weights-resident first).
    if (!c.chosen || c.best[int(o)]->tile.burst_cost_bytes < c.chosen->tile.burst_cost_bytes) c.chosen = c.best[int(o)];
  }
  c.why = fmt::format("{}; {}; {}", order_figures(c.best[0], orders[0]), order_figures(c.best[1], orders[1]),
                      order_figures(c.best[2], orders[2]));
  if (c.chosen)
    c.why = fmt::format("{}: {}", policy == DepthOrderPolicy::Auto ? "fewest burst DDR bytes" : "order forced", c.why);
  return c;
}

}  // namespace npu::compiler
