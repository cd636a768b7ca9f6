// A Conv split along input channels (cin_split.hpp): for each output tile, one CONV per
// input-channel group on that group's input band and weight slice. The first group's CONV
// writes its partial sums to the SRAM accumulator buffer (acc_out), the middle ones add to it
// (acc_in + acc_out), and the last one reads it (acc_in) and applies the epilogue, whose
// output is stored. Reference: docs/compiler.md "Input-channel split".
#include <algorithm>

#include "backend/codegen/conv_tile.hpp"

namespace npu::compiler::codegen {

namespace {

// The epilogue of group k of n of tile t: the whole epilogue on the last group; before it only
// the input side (in_scale, int8 requant's in_zp), the output stage waits for the last group.
isa::Epilogue group_epilogue(const GenCtx& ctx, const LayerSpec& L, const ConvTilePlan& p, const ConvTile& t, int ci0,
                             bool last) {
  isa::Epilogue ep = epilogue(L, p, t.co0, t.idx);
  if (!L.in_scale.empty()) {
    ep.has_in_scale = true;
    ep.in_scale_addr = p.sram.in_scale + std::uint32_t(std::uint64_t(ci0) * ctx.e);
  }
  if (last) return ep;
  // The output stage's operands go with its flags: a .npuasm line carries an address only where
  // its flag is set, so a flag cleared with its address kept would not read back equal.
  ep.has_bias = ep.has_scale_shift = ep.has_residual = false;
  ep.bias_addr = ep.scale_shift_addr = ep.residual_addr = 0;
  ep.act = isa::ActOp::None;
  ep.act_alpha = ep.act_beta = 0;
  return ep;
}

// Group k of tile t: its input band's channels [ci0, ci0 + cit), its weight slice (cot runs of
// cit x kh x kw at the stride of a whole output channel), the CONV and, on the last group,
// the STORE (and on the first, the residual LOAD).
void split_step(const GenCtx& ctx, const LayerSpec& L, const ConvTilePlan& p, const ConvTile& t, int k, Slots& in,
                Slots& w, Step& s) {
  const ConvGeom& g = L.geom;
  const int ci0 = k * p.ci_tile, cit = std::min(p.ci_tile, g.c_in - ci0);
  const bool first = k == 0, last = k == p.n_ci - 1;
  const std::uint64_t plane_in = std::uint64_t(g.h_in) * g.w_in * ctx.e;
  const std::uint64_t plane_out = std::uint64_t(g.h_out) * g.w_out * ctx.e;
  const std::uint64_t taps = std::uint64_t(g.kh) * g.kw;
  const long key = long(t.idx) * p.n_ci + k;
  const RowBand band = input_band(g, t.ro0, t.hot);
  in.need(key);
  s.loads.push_back({ctx.root(L.inputs[0]),
                     dma_rows(t.X + (std::uint64_t(ci0) * g.h_in + std::uint64_t(band.first_row)) * g.w_in * ctx.e,
                              in.now(), std::uint64_t(band.rows) * g.w_in, std::uint64_t(cit), plane_in, ctx.e)});
  w.need(key);
  s.loads.push_back({ctx.root(L.weight),
                     dma_rows(ctx.addr(L.weight) + (std::uint64_t(t.co0) * g.c_in + std::uint64_t(ci0)) * taps * ctx.e,
                              w.now(), std::uint64_t(cit) * taps, std::uint64_t(t.cot),
                              std::uint64_t(g.c_in) * taps * ctx.e, ctx.e)});
  const std::uint64_t out_off = (std::uint64_t(t.co0) * g.h_out + std::uint64_t(t.ro0)) * g.w_out * ctx.e;
  if (first && !L.residual.empty())
    s.loads.push_back({ctx.root(L.residual), dma_rows(t.R + out_off, p.sram.res[t.idx % 2],
                                                      std::uint64_t(t.hot) * g.w_out, std::uint64_t(t.cot), plane_out,
                                                      ctx.e)});
  isa::ConvParams cp = band_conv_params(g, band);
  cp.in_addr = in.now();
  cp.w_addr = w.now();
  cp.out_addr = last ? t.out_slot : p.sram.acc;
  cp.c_in = cit;
  cp.c_out = t.cot;
  cp.group = 1;
  cp.epilogue = group_epilogue(ctx, L, p, t, ci0, last);
  cp.acc_in = !first, cp.acc_in_addr = first ? 0 : p.sram.acc;  // (an address only with its flag, as in .npuasm)
  cp.acc_out = !last, cp.acc_out_addr = last ? 0 : p.sram.acc;
  s.compute.op = isa::Opcode::Conv;
  s.compute.params = cp;
  if (last)
    s.stores.push_back({ctx.root(L.output), dma_rows(t.Y + out_off, t.out_slot, std::uint64_t(t.hot) * g.w_out,
                                                     std::uint64_t(t.cot), plane_out, ctx.e)});
}

}  // namespace

std::vector<Step> gen_conv_split(GenCtx& ctx, const LayerSpec& L, const ConvTilePlan& p) {
  const int images = std::max(L.batch, 1);
  ctx.info.array_cycles *= std::uint64_t(images);
  ctx.info.loop_order = to_string(LoopOrder::WeightsResident);
  Slots in = Slots::at(p.sram.in), w = Slots::at(p.sram.w);
  const std::vector<std::tuple<int, int, int>> order = conv_tile_order(p, images, true);
  std::vector<Step> steps;
  for (std::size_t idx = 0; idx < order.size(); ++idx) {
    const ConvTile t = conv_tile(ctx, L, p, order[idx], idx);
    for (int k = 0; k < p.n_ci; ++k) {
      Step s;
      if (idx == 0 && k == 0) add_resident_params(ctx, L, p, s);
      split_step(ctx, L, p, t, k, in, w, s);
      steps.push_back(std::move(s));
    }
  }
  return steps;
}

}  // namespace npu::compiler::codegen
