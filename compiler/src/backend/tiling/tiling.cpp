#include "npu/compiler/backend/tiling/tiling.hpp"
#include "npu/compiler/backend/tiling/sram_placement.hpp"
#include "backend/tiling/tiling_detail.hpp"
#include "npu/compiler/backend/tiling/conv_plan_cache.hpp"
#include "npu/compiler/backend/tiling/latency_first.hpp"

#include <algorithm>
#include <tuple>
#include <utility>
#include <vector>

#include "npu/isa/cost/gemv_mapping.hpp"
#include "npu/isa/cost/systolic_fold.hpp"
#include "npu/isa/cost/ws_preload.hpp"

namespace npu::compiler {

const char* to_string(LoopOrder o) {
  return o == LoopOrder::WeightsResident ? "weights-resident" : "input-resident";
}

const char* to_string(OverlapPolicy p) {
  return p == OverlapPolicy::Recompute ? "recompute" : p == OverlapPolicy::Cache ? "cache" : "auto";
}

isa::ConvParams band_conv_params(const ConvGeom& g, const RowBand& band) {
  isa::ConvParams cp;
  cp.h_in = band.rows;
  cp.w_in = g.w_in;
  cp.kh = g.kh;
  cp.kw = g.kw;
  cp.stride_h = g.stride_h;
  cp.stride_w = g.stride_w;
  cp.pad_top = band.pad_top;
  cp.pad_bottom = band.pad_bottom;
  cp.pad_left = g.pad_left;
  cp.pad_right = g.pad_right;
  cp.dilation = g.dilation;
  return cp;
}

isa::PoolParams band_pool_params(const ConvGeom& g, const RowBand& band) {
  isa::PoolParams pp;
  pp.h_in = band.rows;
  pp.w_in = g.w_in;
  pp.kh = g.kh;
  pp.kw = g.kw;
  pp.stride_h = g.stride_h;
  pp.stride_w = g.stride_w;
  pp.pad_top = band.pad_top;
  pp.pad_bottom = band.pad_bottom;
  pp.pad_left = g.pad_left;
  pp.pad_right = g.pad_right;
  return pp;
}

RowBand input_band(const ConvGeom& g, int out_row0, int out_rows) {
  const int first = out_row0 * g.stride_h - g.pad_top;
  const int last = (out_row0 + out_rows - 1) * g.stride_h - g.pad_top + g.dilation * (g.kh - 1);
  RowBand b;
  b.first_row = std::max(first, 0);
  const int hi = std::min(last, g.h_in - 1);
  b.rows = hi - b.first_row + 1;
  b.pad_top = b.first_row - first;
  b.pad_bottom = last - hi;
  return b;
}

namespace {

// Output channels per tile come in multiples of this: a group (grouped conv), or a head of a
// GEMM with a rotary epilogue (TilingOptions::co_multiple).
int co_unit(const ConvGeom& g, const TilingOptions& opt) {
  const int u = g.group == 1 ? 1 : g.cout_per_group();
  return opt.co_multiple > 1 && g.c_out % opt.co_multiple == 0 ? std::max(u, opt.co_multiple) : u;
}

}  // namespace

double dma_estimate_ns(const TilingOptions& opt, std::uint64_t bytes, std::uint64_t descriptors) {
  if (opt.dma.valid()) return isa::dma_transfers_ns(opt.dma, bytes, descriptors);
  return opt.ddr_bytes_per_ns > 0 ? double(bytes) / opt.ddr_bytes_per_ns : 0.0;
}

namespace tiling_detail {

// Sum over row tiles of the input rows each band loads.
std::uint64_t band_rows_total(const ConvGeom& g, int rows_tile) {
  std::uint64_t total = 0;
  for (int r0 = 0; r0 < g.h_out; r0 += rows_tile) total += std::uint64_t(input_band(g, r0, std::min(rows_tile, g.h_out - r0)).rows);
  return total;
}

int max_band_rows(const ConvGeom& g, int rows_tile) {
  return std::min((rows_tile - 1) * g.stride_h + g.dilation * (g.kh - 1) + 1, g.h_in);
}

// Distinct values ceil(total/n) for n = 1..total, ascending. O(sqrt(total)): for v =
// ceil(total/n) > 1 the largest n with the same value is (total-1)/(v-1) (ceil(total/n) = v
// iff (v-1)*n < total <= v*n), so n jumps past it (a 32000-entry vocabulary has 357 values).
std::vector<int> ceil_splits(int total) {
  std::vector<int> out;
  for (int n = 1; n <= total;) {
    const int v = int(ceil_div(total, n));
    out.push_back(v);
    if (v == 1) break;
    n = (total - 1) / (v - 1) + 1;
  }
  std::reverse(out.begin(), out.end());
  return out;
}

std::uint64_t bursts(std::uint64_t bytes, int burst) {
  const std::uint64_t b = std::uint64_t(std::max(burst, 1));
  return (bytes + b - 1) / b * b;
}

std::uint64_t span_bursts(std::uint64_t offset, std::uint64_t len, int burst) {
  const std::uint64_t b = std::uint64_t(std::max(burst, 1));
  return len == 0 ? 0 : bursts(offset % b + len, burst);
}

std::uint64_t floor_sum(std::uint64_t n, std::uint64_t m, std::uint64_t a, std::uint64_t c) {
  // The Euclid-like reduction of the AtCoder Library's floor_sum_unsigned: every step reduces
  // a and c modulo m, then swaps the roles of m and a. Arithmetic is modulo 2^64.
  std::uint64_t sum = 0;
  while (true) {
    if (a >= m) {
      sum += (n % 2 == 0 ? n / 2 * (n - 1) : (n - 1) / 2 * n) * (a / m);
      a %= m;
    }
    if (c >= m) {
      sum += n * (c / m);
      c %= m;
    }
    const std::uint64_t y_max = a * n + c;
    if (y_max < m) return sum;
    n = y_max / m;
    c = y_max % m;
    std::swap(m, a);
  }
}

std::uint64_t progression_bursts(std::uint64_t n, std::uint64_t step, std::uint64_t len, int burst,
                                 std::uint64_t offset) {
  if (n == 0 || len == 0) return 0;
  const std::uint64_t b = std::uint64_t(std::max(burst, 1)), q = len / b, r = len % b;
  // Run k starts at x_k = (offset + k step) mod b within its burst and touches
  // q + [x_k + r > 0] + [x_k + r > b] bursts. With F(c) = sum_k floor((k step + c) / b):
  // r > 0: [x_k + r > 0] = 1 and sum_k [x_k + r > b] = F(offset + r - 1) - F(offset);
  // r = 0: sum_k [x_k > 0] = F(offset + b - 1) - F(offset).
  const std::uint64_t base = floor_sum(n, b, step, offset);
  const std::uint64_t touched =
      r > 0 ? n * (q + 1) + (floor_sum(n, b, step, offset + r - 1) - base) : n * q + (floor_sum(n, b, step, offset + b - 1) - base);
  return touched * b;
}

// `runs` runs of `run_bytes`, one per `stride_bytes`, from byte `offset`: contiguous when the
// stride is the run; otherwise each run's own bursts (progression_bursts).
std::uint64_t runs_cost(std::uint64_t run_bytes, std::uint64_t runs, std::uint64_t stride_bytes, int burst,
                        std::uint64_t offset) {
  if (runs <= 1 || stride_bytes == run_bytes) return span_bursts(offset, run_bytes * runs, burst);
  return progression_bursts(runs, stride_bytes, run_bytes, burst, offset);
}

std::uint64_t tiled_runs_cost(std::uint64_t run_bytes, std::uint64_t per_tile, std::uint64_t tiles,
                              std::uint64_t stride_bytes, int burst, std::uint64_t offset) {
  // Separate runs: the tiles' runs are the runs of all their channels in a row.
  if (per_tile > 1 && stride_bytes != run_bytes) return runs_cost(run_bytes, per_tile * tiles, stride_bytes, burst, offset);
  // One contiguous span per tile.
  return progression_bursts(tiles, per_tile * stride_bytes, run_bytes * per_tile, burst, offset);
}

// Sizes of the tiles of `total` cut into pieces of `tile`: (size, count) pairs.
TilePieces pieces(int total, int tile) {
  const int n = int(ceil_div(total, tile));
  const int last = total - (n - 1) * tile;
  if (last == tile) return TilePieces({std::uint64_t(tile), std::uint64_t(n)});
  return TilePieces({std::uint64_t(tile), std::uint64_t(n - 1)}, {std::uint64_t(last), 1});
}

// Each (co, rows) tile stores its rows of its channels: tile (j, k) of a piece starts at
// channel c0 + j x cot and row r0 + k x rows, so its runs' offsets follow from the [c, h, w]
// layout (GEMM: [rows, c_out]); the tiles of a piece repeat with their offsets mod burst.
std::uint64_t output_burst_cost(const ConvGeom& g, int co_tile, int rows_tile, const TilingOptions& opt) {
  const std::uint64_t e = std::uint64_t(opt.act_bytes);
  const int B = opt.burst_bytes;
  const std::uint64_t w = std::uint64_t(g.w_out), plane_out = std::uint64_t(g.h_out) * w * e;
  const std::uint64_t row_out = std::uint64_t(g.c_out) * e;  // GEMM: one output row
  std::uint64_t out = 0, c0 = 0;
  for (const auto& cp : pieces(g.c_out, co_tile)) {
    const std::uint64_t cot = cp.first, cc = cp.second;  // (lambdas capture no structured bindings in C++17)
    std::uint64_t r0 = 0;
    for (const auto& rp : pieces(g.h_out, rows_tile)) {
      const std::uint64_t rows = rp.first, rc = rp.second;
      if (g.gemm) {
        out += periodic_sum(rc, rows * row_out, B, [&](std::uint64_t k) {
          return periodic_sum(cc, cot * e, B, [&](std::uint64_t j) {
            return runs_cost(cot * e, rows, row_out, B, (r0 + k * rows) * row_out + (c0 + j * cot) * e);
          });
        });
      } else {
        out += periodic_sum(rc, rows * w * e, B, [&](std::uint64_t k) {
          return tiled_runs_cost(rows * w * e, cot, cc, plane_out, B, c0 * plane_out + (r0 + k * rows) * w * e);
        });
      }
      r0 += rows * rc;
    }
    c0 += cot * cc;
  }
  return out * (opt.residual && !opt.dual_gemm ? 2 : 1);
}

double plan_estimate_ns(double compute_ns, double memory_ns, std::uint64_t first_load_bytes, int steps,
                        const TilingOptions& opt) {
  // The step double buffering cannot overlap: the first step's loads (its input band
  // and weight tile -- the whole input when it is resident) and one step's compute.
  const double fill_ns = std::max(dma_estimate_ns(opt, first_load_bytes, 2), memory_ns / double(steps));
  return std::max(compute_ns, memory_ns) + compute_ns / double(steps) + fill_ns;
}

ConvSramLayout place_conv_buffers(const ConvGeom& g, const ConvBuffers& b, const TilingOptions& opt) {
  const std::uint64_t e = std::uint64_t(opt.act_bytes);
  const std::uint64_t param_bytes = std::uint64_t(opt.reserved_param_bytes_per_channel) * g.c_out;
  // Buffers in address order: in in' w w' params [in_scale] [res res'] out out' [acc] [prologue] [rope rope']; a buffer
  // that does not change during the layer has one slot (size 0 for the second).
  std::uint64_t sizes[14] = {b.in_bytes,
                             b.in_changes ? b.in_bytes : 0,
                             b.w_bytes,
                             b.w_changes ? b.w_bytes : 0,
                             param_bytes,
                             opt.in_scale ? std::uint64_t(g.c_in) * e : 0,
                             opt.residual ? b.out_bytes : 0,
                             opt.residual && b.out_changes ? b.out_bytes : 0,
                             b.out_bytes,
                             b.out_changes ? b.out_bytes : 0};
  std::size_t n = 10;
  if (b.acc_bytes > 0) sizes[n++] = b.acc_bytes;
  if (opt.prologue_param_bytes > 0) sizes[n++] = opt.prologue_param_bytes;
  if (b.rope_bytes > 0) {
    sizes[n++] = b.rope_bytes;
    sizes[n++] = b.in_changes ? b.rope_bytes : 0;
  }
  std::uint32_t o[14];  // on the stack: the tile searches place every tiling they consider
  bool bank_exclusive = false;
  const std::uint64_t packed_bytes = place_sram_buffers(sizes, n, opt.sram_capacity_bytes, opt.sram_banks,
                                                        opt.sram_interleave_bytes, opt.align_bytes, o, &bank_exclusive);
  ConvSramLayout l;
  l.in[0] = o[0];
  l.in[1] = b.in_changes ? o[1] : l.in[0];
  l.w[0] = o[2];
  l.w[1] = b.w_changes ? o[3] : l.w[0];
  l.params = o[4];
  if (opt.in_scale) l.in_scale = o[5];
  if (opt.residual) {
    l.res[0] = o[6];
    l.res[1] = b.out_changes ? o[7] : l.res[0];
  }
  l.out[0] = o[8];
  l.out[1] = b.out_changes ? o[9] : l.out[0];
  if (b.acc_bytes > 0) l.acc = o[10];
  if (opt.prologue_param_bytes > 0) l.prologue = o[n - (b.rope_bytes > 0 ? 3 : 1)];
  if (b.rope_bytes > 0) {
    l.rope[0] = o[n - 2];
    l.rope[1] = b.in_changes ? o[n - 1] : l.rope[0];
  }
  l.total_bytes = packed_bytes;
  l.bank_exclusive = bank_exclusive;
  return l;
}

}  // namespace tiling_detail

using namespace tiling_detail;

std::uint64_t conv_burst_cost(const ConvGeom& g, LoopOrder order, int co_tile, int rows_tile,
                              const TilingOptions& opt) {
  const std::uint64_t e = std::uint64_t(opt.act_bytes);
  const int B = opt.burst_bytes;
  const std::uint64_t n_co = std::uint64_t(ceil_div(g.c_out, co_tile));
  const std::uint64_t n_row = std::uint64_t(ceil_div(g.h_out, rows_tile));
  const auto co_pieces = pieces(g.c_out, co_tile);
  const std::uint64_t plane_in = std::uint64_t(g.h_in) * g.w_in * e;
  const std::uint64_t per_oc = std::uint64_t(g.cin_per_group()) * g.kh * g.kw * e;

  // One pass over every row band, for `tiles` tiles of `per_tile` channels from channel c0
  // (a grouped slice per tile, or all of them): each channel's band rows are one run at byte
  // c x plane + first row x row bytes (GEMM: the band's rows x c_in, contiguous).
  auto bands_cost = [&](std::uint64_t per_tile, std::uint64_t tiles, std::uint64_t c0) {
    std::uint64_t c = 0;
    for (int r0 = 0; r0 < g.h_out; r0 += rows_tile) {
      const RowBand b = input_band(g, r0, std::min(rows_tile, g.h_out - r0));
      const std::uint64_t first = std::uint64_t(b.first_row), rows = std::uint64_t(b.rows);
      c += g.gemm ? tiles * span_bursts(first * g.c_in * e, rows * g.c_in * e, B)
                  : tiled_runs_cost(rows * g.w_in * e, per_tile, tiles, plane_in, B,
                                    c0 * plane_in + first * g.w_in * e);
    }
    return c;
  };
  std::uint64_t input = 0;
  if (g.group > 1 && order == LoopOrder::WeightsResident) {
    std::uint64_t c0 = 0;
    for (const auto& [cot, count] : co_pieces) {
      const std::uint64_t ch = cot / g.cout_per_group() * g.cin_per_group();
      input += bands_cost(ch, count, c0);
      c0 += ch * count;
    }
  } else if (order == LoopOrder::WeightsResident && n_row > 1) {
    input = n_co * bands_cost(std::uint64_t(g.c_in), 1, 0);
  } else {
    input = bands_cost(std::uint64_t(g.c_in), 1, 0);
  }
  // Each co tile's weights are one run from its first output channel (pre-tiled); a computed
  // B (b_row_major) gives K runs of cot x e bytes per tile, N x e apart, from column w0 + j cot.
  std::uint64_t weights = 0, w0 = 0;
  for (const auto& [cot, count] : co_pieces) {
    if (g.b_row_major) {
      const std::uint64_t k_rows = std::uint64_t(g.cin_per_group()) * g.kh * g.kw, row = std::uint64_t(g.c_out) * e;
      // (C++17 lambdas capture no structured bindings: copies of cot and w0.)
      const std::uint64_t c0 = w0, width = cot, tile_bytes = cot * e;
      weights += periodic_sum(count, tile_bytes, B, [&](std::uint64_t j) {
        return runs_cost(tile_bytes, k_rows, row, B, (c0 + j * width) * e);
      });
    } else {
      weights += tiled_runs_cost(cot * per_oc, 1, count, cot * per_oc, B, w0 * per_oc);
    }
    w0 += cot * count;
  }
  if (opt.dual_gemm) weights *= 2;  // the gate's tile beside the up's: one more run of the same size
  if (order == LoopOrder::InputResident && n_co > 1) weights *= n_row;
  return input + weights + output_burst_cost(g, co_tile, rows_tile, opt);
}

ConvSramLayout conv_sram_layout(const ConvGeom& g, LoopOrder order, int co_tile, int rows_tile,
                                const TilingOptions& opt) {
  const int n_co = int(ceil_div(g.c_out, co_tile));
  const int n_row = int(ceil_div(g.h_out, rows_tile));
  const std::uint64_t e = std::uint64_t(opt.act_bytes);
  const int cin_tile = (g.group == 1 || order == LoopOrder::InputResident)
                           ? g.c_in
                           : co_tile / g.cout_per_group() * g.cin_per_group();
  const bool images = opt.batch > 1;
  ConvBuffers b;
  b.in_bytes = std::uint64_t(cin_tile) * max_band_rows(g, rows_tile) * g.w_in * e;
  b.w_bytes = std::uint64_t(co_tile) * g.cin_per_group() * g.kh * g.kw * e * (opt.dual_gemm ? 2 : 1);
  b.out_bytes = std::uint64_t(co_tile) * rows_tile * g.w_out * e;
  b.rope_bytes = std::uint64_t(rows_tile) * opt.rope_row_bytes;
  b.in_changes = images || (g.group == 1 ? n_row > 1 : n_row * n_co > 1);
  b.w_changes = n_co > 1;
  b.out_changes = images || n_row * n_co > 1;
  return place_conv_buffers(g, b, opt);
}

void conv_traffic(const ConvGeom& g, LoopOrder order, int co_tile, int rows_tile, const TilingOptions& opt,
                  std::uint64_t& input_bytes, std::uint64_t& weight_bytes) {
  const std::uint64_t e = std::uint64_t(opt.act_bytes);
  const std::uint64_t n_co = std::uint64_t(ceil_div(g.c_out, co_tile));
  const std::uint64_t n_row = std::uint64_t(ceil_div(g.h_out, rows_tile));
  const std::uint64_t bands = std::uint64_t(g.c_in) * band_rows_total(g, rows_tile) * g.w_in * e;
  const std::uint64_t w = std::uint64_t(g.c_out) * g.cin_per_group() * g.kh * g.kw * e * (opt.dual_gemm ? 2 : 1);
  if (order == LoopOrder::WeightsResident) {
    // Grouped: each channel tile reads only its own input channels, so the bands add up once.
    input_bytes = (g.group > 1 || n_row == 1) ? bands : bands * n_co;
    weight_bytes = w;
  } else {
    input_bytes = bands;
    weight_bytes = n_co == 1 ? w : w * n_row;
  }
}

std::string ConvTilePlan::describe(const ConvGeom& g) const {
  if (n_ci > 1)
    return std::to_string(co_tile) + "co x " + std::to_string(rows_tile) + "r x " + std::to_string(g.w_out) + "w x " +
           std::to_string(ci_tile) + "ci (" + std::to_string(n_co) + "x" + std::to_string(n_row) + "x" +
           std::to_string(n_ci) + " tiles, partial sums in SRAM)";
  return std::to_string(co_tile) + "co x " + std::to_string(rows_tile) + "r x " + std::to_string(g.w_out) +
         "w (" + std::to_string(n_co) + "x" + std::to_string(n_row) + " tiles)";
}

std::uint64_t conv_array_cycles(const ConvGeom& g, int co_tile, int rows_tile, const MacArrayConfig& array,
                                int vector_lanes) {
  if (array.rows <= 0 || array.cols <= 0) return 0;
  const std::int64_t taps = std::int64_t(g.kh) * g.kw;
  std::uint64_t total = 0;
  for (const auto& [cot, cc] : pieces(g.c_out, co_tile)) {
    for (const auto& [rows, rc] : pieces(g.h_out, rows_tile)) {
      std::int64_t cycles = 0;
      if (g.gemm) {
        cycles = isa::gemm_cycles(std::int64_t(rows), std::int64_t(cot), std::int64_t(g.c_in), array, vector_lanes);
      } else if (g.group == 1) {
        // isa::conv_tile_cycles: SCALE-Sim's folds, or Gemmini's weight-block stream (ws_preload.hpp).
        cycles = isa::conv_tile_cycles(1, rows, g.w_out, g.c_in, cot, g.kh, g.kw, array);
      } else {
        cycles = isa::conv_array_cycles(std::int64_t(cot) / g.cout_per_group(), std::int64_t(rows) * g.w_out,
                                        g.cin_per_group(), g.cout_per_group(), taps, array);
      }
      total += cc * rc * std::uint64_t(cycles);
    }
  }
  return total;
}

std::uint64_t conv_min_sram_bytes(const ConvGeom& g, const TilingOptions& opt) {
  return conv_sram_layout(g, LoopOrder::WeightsResident, co_unit(g, opt), 1, opt).total_bytes;
}

namespace {

// LOADs and STOREs the plan's code makes (for the per-descriptor DMA latency): one input
// band per step where the weights stay and the input changes (else per row band), one weight
// tile per output-channel tile (per step where the input stays and the weights change), one
// output STORE per step (and the residual tile's LOAD).
std::uint64_t conv_dma_count(const ConvGeom& g, LoopOrder order, const ConvTilePlan& p, const TilingOptions& opt) {
  const std::uint64_t n_co = std::uint64_t(p.n_co), n_row = std::uint64_t(p.n_row), steps = n_co * n_row;
  const bool input_per_step = order == LoopOrder::WeightsResident && (n_row > 1 || g.group > 1);
  const bool weights_per_step = order == LoopOrder::InputResident && n_co > 1;
  return (input_per_step ? steps : n_row) + (weights_per_step ? steps : n_co) + steps * (opt.residual ? 2 : 1);
}

// The plan of one candidate tiling (loop order, co output channels x rows output rows per
// step, SRAM layout `l`): its DDR traffic, burst cost and (time_based()) time estimate.
ConvTilePlan tile_plan(const ConvGeom& g, LoopOrder order, int co, int rows, const ConvSramLayout& l,
                       const TilingOptions& opt) {
  ConvTilePlan p;
  p.order = order;
  p.co_tile = co;
  p.rows_tile = rows;
  p.n_co = int(ceil_div(g.c_out, co));
  p.n_row = int(ceil_div(g.h_out, rows));
  p.steps = p.n_co * p.n_row;
  p.sram = l;
  conv_traffic(g, order, co, rows, opt, p.input_read_bytes, p.weight_read_bytes);
  p.burst_cost_bytes = conv_burst_cost(g, order, co, rows, opt);
  if (opt.time_based()) {
    p.array_cycles = conv_array_cycles(g, co, rows, opt.array, opt.vector_lanes) * (opt.dual_gemm ? 2 : 1);
    const double compute_ns = double(p.array_cycles) * opt.core_period_ns;
    p.dma_count = conv_dma_count(g, order, p, opt);
    const double memory_ns = dma_estimate_ns(opt, p.burst_cost_bytes, p.dma_count);
    const std::uint64_t e = std::uint64_t(opt.act_bytes);
    const int cin_tile = (g.group == 1 || order == LoopOrder::InputResident)
                             ? g.c_in
                             : co / g.cout_per_group() * g.cin_per_group();
    const std::uint64_t first_load = std::uint64_t(cin_tile) * max_band_rows(g, rows) * g.w_in * e +
                                     std::uint64_t(co) * g.cin_per_group() * g.kh * g.kw * e * (opt.dual_gemm ? 2 : 1);
    p.estimated_ns = plan_estimate_ns(compute_ns, memory_ns, first_load, p.steps, opt);
  }
  return p;
}

}  // namespace

namespace tiling_detail {

// The choice among the tilings that fit (non-empty): by the time estimate within the traffic
// tolerance when time_based(), else by steps and burst cost (deterministic tie-breaks).
const ConvTilePlan& choose_tiling(const std::vector<const ConvTilePlan*>& fits, const TilingOptions& opt) {
  std::uint64_t best = UINT64_MAX;
  for (const ConvTilePlan* p : fits) best = std::min(best, p->burst_cost_bytes);
  const ConvTilePlan* chosen = nullptr;
  if (opt.time_based()) {
    double traffic_limit = double(best) * (1.0 + opt.max_traffic_over_min);
    double best_ns = 0, best_all_ns = 0;
    bool any = false;
    for (const ConvTilePlan* p : fits) {
      if (p == fits.front() || p->estimated_ns < best_all_ns) best_all_ns = p->estimated_ns;
      if (double(p->burst_cost_bytes) > traffic_limit) continue;
      if (!any || p->estimated_ns < best_ns) best_ns = p->estimated_ns;
      any = true;
    }
    // Latency first: a tiling over the DDR cap that at least halves the time lifts the cap.
    if (best_all_ns * kOverCapSpeedup <= best_ns) {
      traffic_limit = double(UINT64_MAX);
      best_ns = best_all_ns;
    }
    const double time_limit = best_ns * (1.0 + opt.time_tie_tolerance);
    auto key = [&](const ConvTilePlan& p) {
      // Larger is better: lower burst cost, fewer bytes, weights-resident, wider channel tiles,
      // taller row tiles (a total order, so the choice is deterministic).
      return std::make_tuple(-double(p.burst_cost_bytes), -double(p.input_read_bytes + p.weight_read_bytes),
                             p.order == LoopOrder::WeightsResident ? 1 : 0, p.co_tile, p.rows_tile);
    };
    for (const ConvTilePlan* p : fits) {
      if (double(p->burst_cost_bytes) > traffic_limit || p->estimated_ns > time_limit) continue;
      if (!chosen || key(*p) > key(*chosen)) chosen = p;
    }
    return *chosen;
  }
  const double limit = double(best) * (1.0 + opt.traffic_tolerance);
  auto key = [&](const ConvTilePlan& p) {
    // Larger is better: steps up to the target, then lower burst cost, then fewer bytes,
    // then weights-resident, then wider channel tiles (fewer array refills), taller tiles.
    return std::make_tuple(std::min(p.steps, opt.target_steps), -double(p.burst_cost_bytes),
                           -double(p.input_read_bytes + p.weight_read_bytes),
                           p.order == LoopOrder::WeightsResident ? 1 : 0, p.co_tile, p.rows_tile);
  };
  for (const ConvTilePlan* p : fits) {
    if (double(p->burst_cost_bytes) > limit) continue;
    if (!chosen || key(*p) > key(*chosen)) chosen = p;
  }
  return *chosen;
}

ConvTilePlan choose_tiling(const std::vector<ConvTilePlan>& fits, const TilingOptions& opt) {
  std::vector<const ConvTilePlan*> ptrs;
  ptrs.reserve(fits.size());
  for (const ConvTilePlan& p : fits) ptrs.push_back(&p);
  return choose_tiling(ptrs, opt);
}

// A tile's partial sums (co x rows x w_out of accumulator_elem_bytes) fit the accumulator, or
// there is none (TilingOptions::accumulator_bytes == 0).
bool fits_accumulator(const ConvGeom& g, int co, int rows, const TilingOptions& opt) {
  if (opt.accumulator_bytes == 0) return true;
  const std::uint64_t psum = std::uint64_t(co) * std::uint64_t(rows) * std::uint64_t(g.w_out) *
                             std::uint64_t(opt.accumulator_elem_bytes);
  return psum <= opt.accumulator_bytes;
}

}  // namespace tiling_detail

namespace tiling_detail {

// Every tiling whose SRAM layout fits sram_bytes, with its layout's total bytes, in the
// order order x co tile x row tile. A layout's total bytes do not depend on sram_bytes, so the
// list for a smaller capacity is this one filtered (plan_conv computes it once for all its
// capacities).
std::vector<std::pair<std::uint64_t, ConvTilePlan>> tilings_fitting(const ConvGeom& g, std::uint64_t sram_bytes,
                                                                    const TilingOptions& opt) {
  const int unit = co_unit(g, opt);
  std::vector<int> co_tiles;
  for (int t : ceil_splits(g.c_out / unit)) co_tiles.push_back(t * unit);
  const std::vector<int> row_tiles = ceil_splits(g.h_out);

  std::vector<std::pair<std::uint64_t, ConvTilePlan>> fits;
  for (LoopOrder order : {LoopOrder::WeightsResident, LoopOrder::InputResident}) {
    for (int co : co_tiles) {
      for (int rows : row_tiles) {
        if (!fits_accumulator(g, co, rows, opt)) continue;
        const ConvSramLayout l = conv_sram_layout(g, order, co, rows, opt);
        if (l.total_bytes > sram_bytes) continue;
        fits.emplace_back(l.total_bytes, tile_plan(g, order, co, rows, l, opt));
      }
    }
  }
  return fits;
}

// The chosen tiling among `all` (tilings_fitting) whose layout fits sram_bytes: its index in
// `all`, or -1 when none fits.
std::ptrdiff_t plan_conv_in(const std::vector<std::pair<std::uint64_t, ConvTilePlan>>& all, std::uint64_t sram_bytes,
                            const TilingOptions& opt) {
  std::vector<const ConvTilePlan*> fits;
  fits.reserve(all.size());
  for (const auto& [bytes, plan] : all)
    if (bytes <= sram_bytes) fits.push_back(&plan);
  if (fits.empty()) return -1;
  const ConvTilePlan* chosen = &choose_tiling(fits, opt);
  // `all` is a vector of pairs: the chosen plan's pair is found by its address.
  for (std::size_t i = 0; i < all.size(); ++i)
    if (&all[i].second == chosen) return std::ptrdiff_t(i);
  return -1;  // not reached: choose_tiling returns one of `fits`
}

// Estimates within time_tie_tolerance are ties (as in choose_tiling), so a plan that moves
// fewer bytes at a tied estimated time is an improvement.
bool conv_plan_improves(const ConvTilePlan& a, const ConvTilePlan& b, const TilingOptions& opt) {
  if (!opt.time_based()) return a.burst_cost_bytes < b.burst_cost_bytes;
  const bool time_tied = a.estimated_ns <= b.estimated_ns * (1.0 + opt.time_tie_tolerance);
  // Latency first: at most half the time wins whatever the DDR bytes (as in choose_tiling).
  if (a.estimated_ns * kOverCapSpeedup <= b.estimated_ns) return true;
  return a.burst_cost_bytes <= b.burst_cost_bytes && time_tied &&
         (a.burst_cost_bytes < b.burst_cost_bytes || a.estimated_ns < b.estimated_ns);
}

}  // namespace tiling_detail

std::optional<ConvTilePlan> plan_conv(const ConvGeom& g, std::uint64_t sram_bytes, const TilingOptions& opt) {
  // The same choice, memoised across the sizes of one compile() (conv_plan_cache.hpp).
  if (opt.conv_plans != nullptr) return opt.conv_plans->plan(g, sram_bytes, opt);
  // The plan for sram_bytes competes with the plans for sram_bytes/2, /4, ... (down to the
  // minimal tile): every tiling that fits a smaller SRAM also fits this one, but the choice
  // among tilings (tolerances, tie-breaks) can land on one the cost model rates worse, or one
  // that buys estimated time with more DDR traffic. Going up from the smallest capacity, a
  // larger capacity's plan replaces the kept one only when it is a Pareto improvement: burst
  // cost and (time_based() only) estimated time no higher, one strictly lower
  // (conv_plan_improves). So along C, 2C, 4C, ... (nested candidate lists) neither the burst
  // cost nor the estimated time of the chosen plan ever rises, and equal-cost plans keep the
  // smaller SRAM's tiles.
  const std::uint64_t min_bytes = conv_min_sram_bytes(g, opt);
  std::vector<std::uint64_t> caps;
  for (std::uint64_t c = sram_bytes; c >= min_bytes && c > 0; c /= 2) caps.push_back(c);
  const std::vector<std::pair<std::uint64_t, ConvTilePlan>> all = tilings_fitting(g, sram_bytes, opt);
  const ConvTilePlan* best = nullptr;
  for (auto it = caps.rbegin(); it != caps.rend(); ++it) {
    const std::ptrdiff_t i = plan_conv_in(all, *it, opt);
    if (i >= 0 && (!best || conv_plan_improves(all[std::size_t(i)].second, *best, opt))) best = &all[std::size_t(i)].second;
  }
  if (!best) return std::nullopt;
  return *best;
}

}  // namespace npu::compiler
