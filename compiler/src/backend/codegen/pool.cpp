// POOL layers on the vector unit: channel groups of full height, or row bands of one
// channel when a plane does not fit. Reference: docs/compiler.md "Code generation".
#include <algorithm>

#include "backend/codegen/layer_codegen.hpp"

namespace npu::compiler::codegen {

using isa::Opcode;

std::vector<Step> gen_pool(GenCtx& ctx, const LayerSpec& L) {
  const ConvGeom& g = L.geom;
  const std::uint64_t C = std::uint64_t(g.c_in);
  auto band_rows = [&](int rows_tile) {
    return std::uint64_t(std::min((rows_tile - 1) * g.stride_h + g.kh, g.h_in));
  };
  const std::uint64_t table = L.requant.empty() ? 0 : ctx.opt.align_bytes;  // int8 global_avg pair
  auto footprint = [&](std::uint64_t ct, int rows_tile) {
    return 2 * align_up(ct * band_rows(rows_tile) * g.w_in * ctx.e, ctx.opt.align_bytes) +
           2 * align_up(ct * std::uint64_t(rows_tile) * g.w_out * ctx.e, ctx.opt.align_bytes) + table;
  };
  std::uint64_t ct = 0;
  int rows_tile = g.h_out;
  if (footprint(1, g.h_out) <= ctx.cap) {
    std::uint64_t lo = 1, hi = C;  // largest ct that fits
    while (lo < hi) {
      const std::uint64_t mid = (lo + hi + 1) / 2;
      if (footprint(mid, g.h_out) <= ctx.cap) lo = mid; else hi = mid - 1;
    }
    ct = std::min(lo, std::max<std::uint64_t>(std::uint64_t(ceil_div(std::int64_t(C), 8)), 1));
  } else {
    if (L.pool == isa::PoolOp::GlobalAvg) ctx.too_big(L, footprint(1, g.h_out));
    ct = 1;
    while (rows_tile > 1 && footprint(1, rows_tile) > ctx.cap) rows_tile = (rows_tile + 1) / 2;
    if (footprint(1, rows_tile) > ctx.cap) ctx.too_big(L, footprint(1, 1));
  }
  const std::uint64_t in_tile = ct * band_rows(rows_tile) * g.w_in * ctx.e;
  const std::uint64_t out_tile = ct * std::uint64_t(rows_tile) * g.w_out * ctx.e;
  const auto o = ctx.place({in_tile, in_tile, out_tile, out_tile, table});
  const std::uint32_t i0 = o[0], i1 = o[1], o0 = o[2], o1 = o[3];
  ctx.info.tile = std::to_string(ct) + "c x " + std::to_string(rows_tile) + "r x " + std::to_string(g.w_out) + "w";
  ctx.info.loop_order = "streaming";
  const std::uint64_t X = ctx.addr(L.inputs[0]), Y = ctx.addr(L.output);
  const std::uint64_t plane_in = std::uint64_t(g.h_in) * g.w_in * ctx.e;
  const std::uint64_t plane_out = std::uint64_t(g.h_out) * g.w_out * ctx.e;
  std::vector<Step> steps;
  std::uint64_t i = 0;
  for (std::uint64_t c0 = 0; c0 < C; c0 += ct)
    for (int r0 = 0; r0 < g.h_out; r0 += rows_tile, ++i) {
      const std::uint64_t n = std::min(ct, C - c0);
      const int hot = std::min(rows_tile, g.h_out - r0);
      const RowBand band = input_band(g, r0, hot);
      const std::uint32_t si = i % 2 ? i1 : i0, so = i % 2 ? o1 : o0;
      Step s;
      isa::Requant rq;
      ctx.add_table(L, s, o[4], rq, i == 0);
      s.loads.push_back({ctx.root(L.inputs[0]),
                         dma_rows(X + (c0 * g.h_in + std::uint64_t(band.first_row)) * g.w_in * ctx.e, si,
                             std::uint64_t(band.rows) * g.w_in, n, plane_in, ctx.e)});
      isa::PoolParams pp = band_pool_params(g, band);
      pp.requant = rq;
      pp.op = L.pool;
      if (L.pool == isa::PoolOp::AvgPad) pp.requant.in_zp = pp.requant.out_zp = L.int8.in_zp;  // int8 padding code
      pp.in_addr = si;
      pp.out_addr = so;
      pp.c = int(n);
      s.compute.op = Opcode::Pool;
      s.compute.params = pp;
      s.stores.push_back({ctx.root(L.output), dma_rows(Y + (c0 * g.h_out + std::uint64_t(r0)) * g.w_out * ctx.e, so,
                                              std::uint64_t(hot) * g.w_out, n, plane_out, ctx.e)});
      steps.push_back(std::move(s));
    }
  return steps;
}

}  // namespace npu::compiler::codegen
