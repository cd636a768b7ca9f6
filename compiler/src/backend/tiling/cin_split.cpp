// Tiles split along input channels (cin_split.hpp).
#include "npu/compiler/backend/tiling/cin_split.hpp"

#include <utility>
#include <vector>

#include "backend/tiling/tiling_detail.hpp"
#include "npu/compiler/backend/tiling/conv_plan_cache.hpp"

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

namespace {

using Pieces = TilePieces;

// The input part of a split tiling's burst cost, for one pass over the row bands (the plan
// makes n_co passes): each band's channels group by group. Channel c's band rows are one run
// at byte c x plane + first row x row bytes (runs_cost counts the bursts each touches).
std::uint64_t split_input_cost(const ConvGeom& g, int rows_tile, const Pieces& ci_pieces, const TilingOptions& opt) {
  const std::uint64_t e = std::uint64_t(opt.act_bytes);
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
  return input;
}

// The weight part, for one pass over the weights ([c_out, c_in, kh, kw]; the plan makes n_row
// passes): per (co tile j, group k), cot runs of cit x kh x kw elements, one per output
// channel, from (co0 + j cot, ci0 + k cit). Those runs are separate (stride c_in x kh x kw),
// so the co tiles of one piece together are cc x cot runs one per channel: for group k, one
// progression from (co0, ci0 + k cit) (progression_bursts), summed over the groups' period
// (periodic_sum) instead of over both the tiles' and the groups' periods, which made up most
// of a compile (docs/performance.md, "The split search's burst costs"). A group that is all
// of c_in (whole_too) makes each tile's runs one contiguous span.
std::uint64_t split_weight_cost(const ConvGeom& g, int co_tile, const Pieces& ci_pieces, const TilingOptions& opt) {
  const std::uint64_t e = std::uint64_t(opt.act_bytes);
  const int B = opt.burst_bytes;
  const std::uint64_t per_ci = std::uint64_t(g.kh) * g.kw * e, per_co = std::uint64_t(g.c_in) * per_ci;
  std::uint64_t weights = 0, co0 = 0;
  for (const auto& cp : pieces(g.c_out, co_tile)) {
    const std::uint64_t cot = cp.first, cc = cp.second;
    std::uint64_t ci0 = 0;
    for (const auto& ip : ci_pieces) {
      const std::uint64_t cit = ip.first, count = ip.second, run = cit * per_ci;
      if (run == per_co && cot > 1) {  // whole c_in: a tile's cot runs are one span
        weights += count * periodic_sum(cc, cot * per_co, B, [&](std::uint64_t j) {
          return span_bursts((co0 + j * cot) * per_co, run * cot, B);
        });
      } else {
        weights += periodic_sum(count, run, B, [&](std::uint64_t k) {
          return progression_bursts(cc * cot, per_co, run, B, co0 * per_co + (ci0 + k * cit) * per_ci);
        });
      }
      ci0 += cit * count;
    }
    co0 += cot * cc;
  }
  return weights;
}

// The loop order's total: the input pass once per co tile, the weight pass once per row tile,
// the output once (conv_split_burst_cost and SplitCostTable share it).
std::uint64_t split_cost_sum(const ConvGeom& g, int co_tile, int rows_tile, std::uint64_t input, std::uint64_t weights,
                             std::uint64_t output) {
  return std::uint64_t(ceil_div(g.c_out, co_tile)) * input + std::uint64_t(ceil_div(g.h_out, rows_tile)) * weights + output;
}

// plan_conv_split's burst costs. Each of the three parts depends on two of the three tile
// sizes (input: rows and ci; weights: co and ci; output: co and rows), so each is computed
// once per pair, when first asked, not once per triple: the search visits |ci| x |co| x |rows|
// tilings (up to 27,900 in a ResNet-50 layer), and the per-triple sums were 60 % of its
// compile (docs/performance.md, "The split search's burst costs").
class SplitCostTable {
 public:
  SplitCostTable(const ConvGeom& g, const TilingOptions& opt, const std::vector<int>& ci, const std::vector<int>& co,
                 const std::vector<int>& rows)
      : g_(g), opt_(opt), co_(co), rows_(rows), input_(ci.size() * rows.size(), kUnset),
        weights_(ci.size() * co.size(), kUnset), output_(co.size() * rows.size(), kUnset) {
    for (int c : ci) ci_pieces_.push_back(pieces(g.c_in, c));
  }
  const Pieces& ci_pieces(std::size_t i) const { return ci_pieces_[i]; }
  // conv_split_burst_cost(g, co_[j], rows_[k], ci_[i], opt), the same sum.
  std::uint64_t cost(std::size_t i, std::size_t j, std::size_t k) {
    std::uint64_t& in = input_[i * rows_.size() + k];
    if (in == kUnset) in = split_input_cost(g_, rows_[k], ci_pieces_[i], opt_);
    std::uint64_t& w = weights_[i * co_.size() + j];
    if (w == kUnset) w = split_weight_cost(g_, co_[j], ci_pieces_[i], opt_);
    std::uint64_t& out = output_[j * rows_.size() + k];
    if (out == kUnset) out = output_burst_cost(g_, co_[j], rows_[k], opt_);
    return split_cost_sum(g_, co_[j], rows_[k], in, w, out);
  }

 private:
  static constexpr std::uint64_t kUnset = ~std::uint64_t(0);
  const ConvGeom& g_;
  const TilingOptions& opt_;
  const std::vector<int>&co_, &rows_;
  std::vector<Pieces> ci_pieces_;
  std::vector<std::uint64_t> input_, weights_, output_;
};

}  // namespace

std::uint64_t conv_split_burst_cost(const ConvGeom& g, int co_tile, int rows_tile, int ci_tile,
                                    const TilingOptions& opt) {
  const Pieces ci_pieces = pieces(g.c_in, ci_tile);
  return split_cost_sum(g, co_tile, rows_tile, split_input_cost(g, rows_tile, ci_pieces, opt),
                        split_weight_cost(g, co_tile, ci_pieces, opt), output_burst_cost(g, co_tile, rows_tile, opt));
}

namespace {

// The plan of one split tiling: traffic, burst cost, array cycles and (time_based()) estimate.
ConvTilePlan split_plan(const ConvGeom& g, int co, int rows, int ci, const ConvSramLayout& l,
                        std::uint64_t burst_cost_bytes, const Pieces& ci_pieces, const TilingOptions& opt) {
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
  p.burst_cost_bytes = burst_cost_bytes;
  for (const auto& [cit, count] : ci_pieces) {
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
  if (opt.conv_plans != nullptr) return opt.conv_plans->split(g, sram_bytes, opt, whole_too);  // memoised, the same choice
  std::vector<int> ci_tiles = ceil_splits(g.c_in);
  if (!whole_too) ci_tiles.pop_back();  // all c_in in one group is no split (plan_conv's tiles)
  const std::vector<int> co_tiles = ceil_splits(g.c_out);
  const std::vector<int> row_tiles = ceil_splits(g.h_out);
  SplitCostTable costs(g, opt, ci_tiles, co_tiles, row_tiles);
  // Up to 27,900 tilings fit per layer (152 B each): the vector is kept between calls, so its
  // pages are allocated and faulted in once per thread, not once per search (a fresh vector
  // per search made a ResNet-50 compile 1.4x the CPU, docs/performance.md).
  thread_local std::vector<ConvTilePlan> fits;
  fits.clear();
  for (std::size_t i = 0; i < ci_tiles.size(); ++i)
    for (std::size_t j = 0; j < co_tiles.size(); ++j)
      for (std::size_t k = 0; k < row_tiles.size(); ++k) {
        const int ci = ci_tiles[i], co = co_tiles[j], rows = row_tiles[k];
        if (!fits_accumulator(g, co, rows, opt)) continue;
        const ConvSramLayout l = conv_split_sram_layout(g, co, rows, ci, opt);
        if (l.total_bytes > sram_bytes) continue;
        fits.push_back(split_plan(g, co, rows, ci, l, costs.cost(i, j, k), costs.ci_pieces(i), opt));
      }
  if (fits.empty()) return std::nullopt;
  return choose_tiling(fits, opt);
}

std::uint64_t conv_split_min_sram_bytes(const ConvGeom& g, const TilingOptions& opt) {
  return conv_split_sram_layout(g, 1, 1, 1, opt).total_bytes;
}

}  // namespace npu::compiler
