// Tiles split along input channels (cin_split.hpp).
#include "npu/compiler/backend/tiling/cin_split.hpp"

#include <vector>

#include "backend/tiling/tiling_detail.hpp"

namespace npu::compiler {

using namespace tiling_detail;

bool cin_split_applies(const ConvGeom& g) { return g.group == 1 && !g.gemm && g.c_in >= 2; }

ConvSramLayout conv_split_sram_layout(const ConvGeom& g, int co_tile, int rows_tile, int ci_tile,
                                      const TilingOptions& opt) {
  const std::uint64_t e = std::uint64_t(opt.act_bytes);
  ConvBuffers b;
  b.in_bytes = std::uint64_t(ci_tile) * max_band_rows(g, rows_tile) * g.w_in * e;
  b.w_bytes = std::uint64_t(co_tile) * ci_tile * g.kh * g.kw * e;
  b.out_bytes = std::uint64_t(co_tile) * rows_tile * g.w_out * e;
  b.acc_bytes = std::uint64_t(co_tile) * rows_tile * g.w_out * isa::kAccElemBytes;
  // Input and weights change with every group (two slots each); the partial sums have one slot.
  b.in_changes = b.w_changes = true;
  b.out_changes = opt.batch > 1 || ceil_div(g.c_out, co_tile) * ceil_div(g.h_out, rows_tile) > 1;
  return place_conv_buffers(g, b, opt);
}

std::uint64_t conv_split_burst_cost(const ConvGeom& g, int co_tile, int rows_tile, int ci_tile,
                                    const TilingOptions& opt) {
  const auto ci_pieces = pieces(g.c_in, ci_tile);
  const std::uint64_t e = std::uint64_t(opt.act_bytes);
  // One pass over the row bands, each band's channels group by group: channel c's band rows are
  // one run at byte c x plane + first row x row bytes (runs_cost counts the bursts each touches).
  const std::uint64_t plane = std::uint64_t(g.h_in) * g.w_in * e;
  std::uint64_t input = 0;
  for (int r0 = 0; r0 < g.h_out; r0 += rows_tile) {
    const RowBand b = input_band(g, r0, std::min(rows_tile, g.h_out - r0));
    const std::uint64_t row_bytes = std::uint64_t(b.rows) * g.w_in * e;
    std::uint64_t c0 = 0;
    for (const auto& [cit, count] : ci_pieces) {
      input += tiled_runs_cost(row_bytes, cit, count, plane, opt.burst_bytes,
                               c0 * plane + std::uint64_t(b.first_row) * g.w_in * e);
      c0 += cit * count;
    }
  }
  // One pass over the weights ([c_out, c_in, kh, kw]): per (co tile j, group k), cot runs of
  // cit x kh x kw elements, one per output channel, from (co0 + j cot, ci0 + k cit).
  const std::uint64_t per_ci = std::uint64_t(g.kh) * g.kw * e, per_co = std::uint64_t(g.c_in) * per_ci;
  std::uint64_t weights = 0, co0 = 0;
  for (const auto& cp : pieces(g.c_out, co_tile)) {
    const std::uint64_t cot = cp.first, cc = cp.second;
    std::uint64_t ci0 = 0;
    for (const auto& ip : ci_pieces) {
      const std::uint64_t cit = ip.first, count = ip.second;
      weights += periodic_sum(cc, cot * per_co, opt.burst_bytes, [&](std::uint64_t j) {
        return periodic_sum(count, cit * per_ci, opt.burst_bytes, [&](std::uint64_t k) {
          return runs_cost(cit * per_ci, cot, per_co, opt.burst_bytes, (co0 + j * cot) * per_co + (ci0 + k * cit) * per_ci);
        });
      });
      ci0 += cit * count;
    }
    co0 += cot * cc;
  }
  return std::uint64_t(ceil_div(g.c_out, co_tile)) * input + std::uint64_t(ceil_div(g.h_out, rows_tile)) * weights +
         output_burst_cost(g, co_tile, rows_tile, opt);
}

namespace {

// The plan of one split tiling: traffic, burst cost, array cycles and (time_based()) estimate.
ConvTilePlan split_plan(const ConvGeom& g, int co, int rows, int ci, const ConvSramLayout& l,
                        const TilingOptions& opt) {
  ConvTilePlan p;
  p.order = LoopOrder::WeightsResident;  // co tile outermost (the weights still change per group)
  p.co_tile = co, p.rows_tile = rows, p.ci_tile = ci;
  p.n_co = int(ceil_div(g.c_out, co));
  p.n_row = int(ceil_div(g.h_out, rows));
  p.n_ci = int(ceil_div(g.c_in, ci));
  p.steps = p.n_co * p.n_row * p.n_ci;
  p.sram = l;
  const std::uint64_t e = std::uint64_t(opt.act_bytes);
  const std::uint64_t taps = std::uint64_t(g.kh) * g.kw;
  p.input_read_bytes = std::uint64_t(p.n_co) * g.c_in * band_rows_total(g, rows) * g.w_in * e;
  p.weight_read_bytes = std::uint64_t(p.n_row) * g.c_out * g.c_in * taps * e;
  p.burst_cost_bytes = conv_split_burst_cost(g, co, rows, ci, opt);
  for (const auto& [cit, count] : pieces(g.c_in, ci)) {
    ConvGeom part = g;
    part.c_in = int(cit);
    p.array_cycles += count * conv_array_cycles(part, co, rows, opt.array, opt.vector_lanes);
  }
  if (opt.time_based()) {
    const double compute_ns = double(p.array_cycles) * opt.core_period_ns;
    // LOADs: an input band and a weight piece per step; STOREs: one output tile per (co, rows)
    // tile (and the residual tile's LOAD).
    const std::uint64_t tiles = std::uint64_t(p.n_co) * std::uint64_t(p.n_row);
    p.dma_count = 2 * std::uint64_t(p.steps) + tiles * (opt.residual ? 2 : 1);
    const double memory_ns = dma_estimate_ns(opt, p.burst_cost_bytes, p.dma_count);
    const std::uint64_t first_load =
        std::uint64_t(ci) * max_band_rows(g, rows) * g.w_in * e + std::uint64_t(co) * ci * taps * e;
    p.estimated_ns = plan_estimate_ns(compute_ns, memory_ns, first_load, p.steps, opt);
  }
  return p;
}

}  // namespace

std::optional<ConvTilePlan> plan_conv_split(const ConvGeom& g, std::uint64_t sram_bytes, const TilingOptions& opt,
                                            bool whole_too) {
  if (whole_too ? (g.group != 1 || g.gemm || g.c_in < 1) : !cin_split_applies(g)) return std::nullopt;
  std::vector<int> ci_tiles = ceil_splits(g.c_in);
  if (!whole_too) ci_tiles.pop_back();  // all c_in in one group is no split (plan_conv's tiles)
  const std::vector<int> co_tiles = ceil_splits(g.c_out);
  const std::vector<int> row_tiles = ceil_splits(g.h_out);
  std::vector<ConvTilePlan> fits;
  for (int ci : ci_tiles)
    for (int co : co_tiles)
      for (int rows : row_tiles) {
        if (!fits_accumulator(g, co, rows, opt)) continue;
        const ConvSramLayout l = conv_split_sram_layout(g, co, rows, ci, opt);
        if (l.total_bytes > sram_bytes) continue;
        fits.push_back(split_plan(g, co, rows, ci, l, opt));
      }
  if (fits.empty()) return std::nullopt;
  return choose_tiling(fits, opt);
}

std::uint64_t conv_split_min_sram_bytes(const ConvGeom& g, const TilingOptions& opt) {
  return conv_split_sram_layout(g, 1, 1, 1, opt).total_bytes;
}

}  // namespace npu::compiler
