// The tiles of one layer (given in ONNXim's notation, or chosen by npu-sim's tiler), each costed
// by the MAC array's tile formula, pipelined against the config's memory (docs/validation.md
// "Against RTL").
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "npu/compiler/backend/tiling/tiling.hpp"
#include "npu/compiler/driver/compiler.hpp"
#include "npu/isa/cost/gemv_mapping.hpp"
#include "npu/isa/cost/ws_preload.hpp"
#include "npu/sim/validate/gemmini_validation.hpp"

namespace npu::sim {
namespace {

// (size, is_last) of the tiles of `total` in pieces of `tile`.
std::vector<std::pair<std::int64_t, bool>> cuts(std::int64_t total, std::int64_t tile) {
  std::vector<std::pair<std::int64_t, bool>> out;
  for (std::int64_t o = 0; o < total; o += tile) out.emplace_back(std::min(tile, total - o), o + tile >= total);
  return out;
}

std::int64_t tile_compute(const RtlLayer& l, std::int64_t n, std::int64_t c, std::int64_t m, std::int64_t p,
                          std::int64_t q, std::int64_t s, std::int64_t r, const HwConfig& hw) {
  if (!l.conv) return isa::gemm_cycles(n, m, c, hw.mac_array, hw.act_unit.lanes);
  return n * isa::conv_tile_cycles(1, p, q, c, m, s, r, hw.mac_array);
}

}  // namespace

std::int64_t transfer_cycles(std::uint64_t bytes, const HwConfig& hw) {
  if (bytes == 0) return 0;
  const bool fixed = hw.memory.model == MemoryModel::Fixed;
  const double gbps = fixed ? hw.memory.bandwidth_gbps : hw.ddr.peak_gbps();
  const double bytes_per_cycle = gbps * 1000.0 / hw.npu.clock_mhz;  // GB/s = B/ns; ns per cycle = 1000 / MHz
  const double latency = fixed ? hw.memory.latency_ns * hw.npu.clock_mhz / 1000.0 : 0.0;
  return std::int64_t(std::ceil(latency - 1e-9)) + std::int64_t(std::ceil(double(bytes) / bytes_per_cycle - 1e-9));
}

std::int64_t pipeline_cycles(const std::vector<TileWork>& tiles, const HwConfig& hw) {
  if (tiles.empty()) return 0;
  // Decoupled access and execute (Gemmini's separate load, execute and store queues): after
  // the first load, the array and the DMA run side by side, and the layer ends with the last store.
  std::int64_t compute = 0, memory = 0;
  for (std::size_t i = 0; i < tiles.size(); ++i) {
    compute += tiles[i].compute_cycles;
    if (i > 0) memory += transfer_cycles(tiles[i].load_bytes, hw);
    if (i + 1 < tiles.size()) memory += transfer_cycles(tiles[i].store_bytes, hw);
  }
  return transfer_cycles(tiles.front().load_bytes, hw) + std::max(compute, memory) +
         transfer_cycles(tiles.back().store_bytes, hw);
}

std::vector<TileWork> given_tiles(const RtlLayer& l, const compiler::TileMapping& t, const HwConfig& hw) {
  const std::uint64_t b = std::uint64_t(dtype_bytes(hw.mac_array.dtype));
  const compiler::LoopSizes& T = t.total;
  const compiler::LoopSizes& I = t.inner;
  std::vector<TileWork> out;
  for (auto [n, ln] : cuts(T.n, I.n))
    for (auto [p, lp] : cuts(T.p, I.p))
      for (auto [q, lq] : cuts(T.q, I.q))
        for (auto [m, lm] : cuts(T.m, I.m))
          for (auto [s, ls] : cuts(T.s, I.s))
            for (auto [r, lr] : cuts(T.r, I.r))
              for (auto [c, lc] : cuts(T.c, I.c)) {
                TileWork w;
                w.compute_cycles = tile_compute(l, n, c, m, p, q, s, r, hw);
                // A strided 1x1 conv loads only the pixels it reads (gemmini.h sp_tiled_conv's
                // `downsample`: mvin with a doubled row stride); a larger kernel loads its whole patch.
                const bool downsample = s == 1 && r == 1;
                const std::int64_t in_px =
                    downsample ? p * q : ((p - 1) * l.stride + s) * ((q - 1) * l.stride + r);
                w.load_bytes = std::uint64_t(n * in_px * c + s * r * c * m) * b;
                // The outputs leave once every C, S and R tile has accumulated into them.
                if (lc && ls && lr) w.store_bytes = std::uint64_t(n * p * q * m) * b;
                out.push_back(w);
              }
  return out;
}

std::optional<std::vector<TileWork>> tiler_tiles(const RtlLayer& l, const HwConfig& hw, std::string& why) {
  compiler::ConvGeom g;
  g.c_in = int(l.c), g.c_out = int(l.m);
  if (l.conv) {
    g.h_in = int(l.in_h), g.w_in = int(l.in_w), g.h_out = int(l.out_h), g.w_out = int(l.out_w);
    g.kh = int(l.kh), g.kw = int(l.kw), g.stride_h = g.stride_w = int(l.stride);
    g.pad_top = g.pad_left = g.pad_bottom = g.pad_right = int(l.pad);
  } else {
    g.h_in = g.h_out = int(l.n), g.w_in = g.w_out = 1, g.gemm = true;
  }
  compiler::TilingOptions opt = compiler::hardware_tiling_options(hw);
  opt.act_bytes = dtype_bytes(hw.mac_array.dtype);
  const auto plan = compiler::plan_conv(g, hw.sram.capacity_bytes, opt);
  if (!plan) {
    why = fmt::format("no tiling fits: the tiler keeps all {} input channels in a tile (minimal tile {} B, "
                      "scratchpad {} B)",
                      g.c_in, compiler::conv_min_sram_bytes(g, opt), hw.sram.capacity_bytes);
    return std::nullopt;
  }
  why = fmt::format("{}, {}, all {} input channels per tile", plan->describe(g), compiler::to_string(plan->order),
                    g.c_in);
  const std::uint64_t b = std::uint64_t(opt.act_bytes);
  const bool weights_outer = plan->order == compiler::LoopOrder::WeightsResident;
  const auto co_cuts = cuts(g.c_out, plan->co_tile), row_cuts = cuts(g.h_out, plan->rows_tile);
  std::vector<TileWork> out;
  const std::size_t outer = weights_outer ? co_cuts.size() : row_cuts.size();
  const std::size_t inner = weights_outer ? row_cuts.size() : co_cuts.size();
  for (std::size_t i = 0; i < outer; ++i)
    for (std::size_t j = 0; j < inner; ++j) {
      const std::size_t ci = weights_outer ? i : j, ri = weights_outer ? j : i;
      const std::int64_t cot = co_cuts[ci].first, rows = row_cuts[ri].first;
      const int row0 = int(std::int64_t(ri) * plan->rows_tile);
      TileWork w;
      w.compute_cycles = l.conv ? tile_compute(l, 1, g.c_in, cot, rows, g.w_out, g.kh, g.kw, hw)
                                : tile_compute(l, rows, g.c_in, cot, 1, 1, 1, 1, hw);
      const std::uint64_t band = std::uint64_t(compiler::input_band(g, row0, int(rows)).rows) * g.w_in * g.c_in * b;
      const std::uint64_t weights = std::uint64_t(cot) * g.c_in * g.kh * g.kw * b;
      w.load_bytes = (weights_outer ? band : weights) + (j == 0 ? (weights_outer ? weights : band) : 0);
      w.store_bytes = std::uint64_t(cot * rows * g.w_out) * b;
      out.push_back(w);
    }
  return out;
}

}  // namespace npu::sim
