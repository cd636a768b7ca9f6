// A Conv over NCDHW (LayerSpec::depth): output depth slice od is the sum over kernel depth kd
// of the 2-D convolutions of input slice id = od * s - pad + kd * dil with W[:, :, kd]. Per
// output tile (co tile x row tile of slice od) one CONV per (valid kd, input-channel group),
// accumulated in SRAM as the input-channel split does (acc_out on the first, acc_in + acc_out
// in the middle, acc_in and the whole epilogue on the last), then one STORE. The tiling and
// the loop order are plan_conv3d's (tiling/conv3d_plan.hpp): weights-resident-depth (a co
// tile's kD weight slices loaded once, then every od swept), input-resident-depth (an
// (od, row tile)'s kD input bands loaded once, then every co tile swept) or per-tap (band and
// weight slice per CONV; the only one that splits c_in). DDR addresses (NCDHW): channel c of
// depth slice z starts at (c D + z) H W elements, so a band's channels are runs at a stride of
// D H W. The weights are stored kd-major in DDR ([kD, Cout, Cin, kh, kw], ddr_image.cpp), so
// W[co tile, ci group, kd] is cot runs of cit x kh x kw (one run with every input channel).
// Reference: docs/compiler.md "Conv over NCDHW".
#include <algorithm>

#include "backend/codegen/conv_tile.hpp"
#include "backend/codegen/program_size.hpp"
#include "npu/compiler/backend/tiling/cin_split.hpp"
#include "npu/compiler/backend/tiling/conv3d_plan.hpp"

namespace npu::compiler::codegen {

namespace {

// One CONV of the sum: tile t of output slice od, kernel depth kd on input slice id, input
// channels [ci0, ci0 + cit); `first` / `last` of the tile's sum.
struct DepthPart {
  int od = 0, kd = 0, id = 0, ci0 = 0, cit = 0;
  bool first = false, last = false;
};

// W[co tile, ci0 : ci0 + cit, kd] from the kd-major DDR copy [kD, Cout, Cin, kh, kw]
// (ddr_image.cpp put_conv3d_weights): cot runs of cit x kh x kw at a stride of Cin x kh x kw,
// one run when cit = Cin. SRAM: [cot, cit, kh, kw], as the CONV reads it.
isa::DmaDesc weight_slice(const GenCtx& ctx, const LayerSpec& L, const ConvTile& t, const DepthPart& q,
                          std::uint32_t sram) {
  const ConvGeom& g = L.geom;
  const std::uint64_t taps = std::uint64_t(g.kh) * g.kw;
  const std::uint64_t co_row = std::uint64_t(g.c_in) * taps * ctx.e;
  isa::DmaDesc d;
  d.ddr_addr = ctx.addr(L.weight) + ((std::uint64_t(q.kd) * g.c_out + std::uint64_t(t.co0)) * g.c_in + std::uint64_t(q.ci0)) * taps * ctx.e;
  d.sram_addr = sram;
  d.elem_bytes = ctx.e;
  d.extent = {std::uint32_t(std::uint64_t(q.cit) * taps), std::uint32_t(t.cot), 1};
  d.ddr_stride_bytes = {co_row, co_row * std::uint64_t(t.cot)};
  return d;
}

// LOAD of input slice q.id's band for tile t's output rows, channels [ci0, ci0 + cit), to `sram`.
isa::DmaDesc band_load(const GenCtx& ctx, const LayerSpec& L, const ConvTile& t, const DepthPart& q,
                       std::uint32_t sram) {
  const ConvGeom& g = L.geom;
  const std::uint64_t plane_in = std::uint64_t(g.h_in) * g.w_in;
  const std::uint64_t chan_in = std::uint64_t(L.depth.d_in) * plane_in * ctx.e;
  const RowBand band = input_band(g, t.ro0, t.hot);
  const std::uint64_t x0 = ctx.addr(L.inputs[0]) +
                           ((std::uint64_t(q.ci0) * L.depth.d_in + q.id) * plane_in + std::uint64_t(band.first_row) * g.w_in) * ctx.e;
  return dma_rows(x0, sram, std::uint64_t(band.rows) * g.w_in, std::uint64_t(q.cit), chan_in, ctx.e);
}

// The CONV of part q of tile t (its band at in_addr, its weight slice at w_addr), with the
// residual LOAD on the tile's first part and the STORE on its last.
void depth_conv(const GenCtx& ctx, const LayerSpec& L, const ConvTilePlan& p, const ConvTile& t, const DepthPart& q,
                std::uint32_t in_addr, std::uint32_t w_addr, Step& s) {
  const ConvGeom& g = L.geom;
  const std::uint64_t plane_out = std::uint64_t(g.h_out) * g.w_out;
  const std::uint64_t chan_out = std::uint64_t(L.depth.d_out) * plane_out * ctx.e;
  const std::uint64_t out_off =
      ((std::uint64_t(t.co0) * L.depth.d_out + q.od) * plane_out + std::uint64_t(t.ro0) * g.w_out) * ctx.e;
  const std::uint64_t rows_out = std::uint64_t(t.hot) * g.w_out;
  if (q.first && !L.residual.empty())
    s.loads.push_back({ctx.root(L.residual), dma_rows(ctx.addr(L.residual) + out_off, p.sram.res[t.idx % 2], rows_out,
                                                      std::uint64_t(t.cot), chan_out, ctx.e)});
  isa::ConvParams cp = band_conv_params(g, input_band(g, t.ro0, t.hot));
  cp.in_addr = in_addr;
  cp.w_addr = w_addr;
  cp.out_addr = q.last ? t.out_slot : p.sram.acc;
  cp.c_in = q.cit;
  cp.c_out = t.cot;
  cp.group = 1;
  cp.epilogue = epilogue(L, p, t.co0, t.idx);
  if (!q.last) {  // the output stage waits for the last CONV of the sum
    cp.epilogue.has_bias = cp.epilogue.has_scale_shift = cp.epilogue.has_residual = cp.epilogue.has_mul = false;
    cp.epilogue.act = isa::ActOp::None;
    cp.epilogue.act_alpha = cp.epilogue.act_beta = 0;
  }
  cp.acc_in = !q.first, cp.acc_in_addr = p.sram.acc;
  cp.acc_out = !q.last, cp.acc_out_addr = p.sram.acc;
  s.compute.op = isa::Opcode::Conv;
  s.compute.params = cp;
  if (q.last)
    s.stores.push_back({ctx.root(L.output),
                        dma_rows(ctx.addr(L.output) + out_off, t.out_slot, rows_out, std::uint64_t(t.cot), chan_out, ctx.e)});
}

// The CONVs of output slice od: every kd whose input slice exists, each input-channel group.
std::vector<DepthPart> depth_parts(const LayerSpec& L, const ConvTilePlan& p, int od) {
  std::vector<DepthPart> parts;
  for (int kd = 0; kd < L.depth.kd; ++kd) {
    const int id = L.depth.input_slice(od, kd);
    if (id < 0) continue;
    for (int k = 0; k < p.n_ci; ++k) {
      DepthPart q;
      q.od = od, q.kd = kd, q.id = id;
      q.ci0 = k * p.ci_tile;
      q.cit = std::min(p.ci_tile, L.geom.c_in - q.ci0);
      parts.push_back(q);
    }
  }
  if (!parts.empty()) parts.front().first = true, parts.back().last = true;
  return parts;
}

// The layer's plan (plan_conv3d), recorded in ctx.info. Throws TooBig when no tile fits.
Conv3dPlan conv3d_plan(GenCtx& ctx, const LayerSpec& L) {
  const ConvGeom& g = L.geom;
  const TilingOptions o = conv_layer_options(ctx.opt, ctx.e, L);
  const Conv3dChoice c = plan_conv3d(g, L.depth, ctx.cap, o);
  if (!c.chosen) ctx.too_big(L, conv_split_min_sram_bytes(g, o), "one output channel x one output row x one input channel");
  const Conv3dPlan& q = *c.chosen;
  ctx.info.tile = q.tile.describe(g) + " x depth " + std::to_string(L.depth.d_out) + " (kd " + std::to_string(L.depth.kd) + ")";
  ctx.info.loop_order = to_string(q.order);
  ctx.info.order_reason = c.why;
  ctx.info.sram_bytes = q.tile.sram.total_bytes;
  ctx.info.array_cycles = q.tile.array_cycles;  // every depth slice's CONVs
  return q;
}

// weights-resident-depth: co tile { its kD weight slices once; od { row tile { kd: band, CONV } } }.
std::vector<Step> gen_weights_resident(GenCtx& ctx, const LayerSpec& L, const Conv3dPlan& q) {
  const ConvTilePlan& p = q.tile;
  Slots in = Slots::at(p.sram.in), w = Slots::at(p.sram.w);
  std::vector<Step> steps;
  std::size_t idx = 0;
  long key = 0;
  for (int j = 0; j < p.n_co; ++j)
    for (int od = 0; od < L.depth.d_out; ++od) {
      const std::vector<DepthPart> parts = depth_parts(L, p, od);  // never empty (lower_conv3d)
      for (int r = 0; r < p.n_row; ++r, ++idx) {
        const ConvTile t = conv_tile(ctx, L, p, {j, r, 0}, idx);
        for (const DepthPart& part : parts) {
          Step s;
          if (steps.empty()) add_resident_params(ctx, L, p, s);
          if (w.need(j))  // the co tile's first CONV: every kd slice, kd-major in SRAM
            for (int kd = 0; kd < L.depth.kd; ++kd) {
              DepthPart all;
              all.kd = kd, all.ci0 = 0, all.cit = L.geom.c_in;
              s.loads.push_back({ctx.root(L.weight), weight_slice(ctx, L, t, all, w.now() + std::uint32_t(kd * q.slice_stride))});
            }
          in.need(key++);
          s.loads.push_back({ctx.root(L.inputs[0]), band_load(ctx, L, t, part, in.now())});
          depth_conv(ctx, L, p, t, part, in.now(), w.now() + std::uint32_t(part.kd * q.slice_stride), s);
          steps.push_back(std::move(s));
        }
      }
    }
  return steps;
}

// input-resident-depth: od { row tile { its valid kd bands once; co tile { kd: weights, CONV } } }.
std::vector<Step> gen_input_resident(GenCtx& ctx, const LayerSpec& L, const Conv3dPlan& q) {
  const ConvTilePlan& p = q.tile;
  Slots in = Slots::at(p.sram.in), w = Slots::at(p.sram.w);
  std::vector<Step> steps;
  std::size_t idx = 0;
  long key = 0;
  for (int od = 0; od < L.depth.d_out; ++od) {
    const std::vector<DepthPart> parts = depth_parts(L, p, od);
    for (int r = 0; r < p.n_row; ++r)
      for (int j = 0; j < p.n_co; ++j, ++idx) {
        const ConvTile t = conv_tile(ctx, L, p, {j, r, 0}, idx);
        for (const DepthPart& part : parts) {
          Step s;
          if (steps.empty()) add_resident_params(ctx, L, p, s);
          if (in.need(long(od) * p.n_row + r))  // the (od, row tile)'s first CONV: every valid kd's band
            for (const DepthPart& b : parts)
              s.loads.push_back({ctx.root(L.inputs[0]), band_load(ctx, L, t, b, in.now() + std::uint32_t(b.kd * q.slice_stride))});
          w.need(key++);
          s.loads.push_back({ctx.root(L.weight), weight_slice(ctx, L, t, part, w.now())});
          depth_conv(ctx, L, p, t, part, in.now() + std::uint32_t(part.kd * q.slice_stride), w.now(), s);
          steps.push_back(std::move(s));
        }
      }
  }
  return steps;
}

// per-tap: co tile { od { row tile { kd { ci group: band and weight slice, CONV } } } }.
std::vector<Step> gen_per_tap(GenCtx& ctx, const LayerSpec& L, const Conv3dPlan& q) {
  const ConvTilePlan& p = q.tile;
  Slots in = Slots::at(p.sram.in), w = Slots::at(p.sram.w);
  std::vector<Step> steps;
  std::size_t idx = 0;
  long key = 0;
  for (int j = 0; j < p.n_co; ++j)
    for (int od = 0; od < L.depth.d_out; ++od) {
      const std::vector<DepthPart> parts = depth_parts(L, p, od);
      for (int r = 0; r < p.n_row; ++r, ++idx) {
        const ConvTile t = conv_tile(ctx, L, p, {j, r, 0}, idx);
        for (const DepthPart& part : parts) {
          Step s;
          if (steps.empty()) add_resident_params(ctx, L, p, s);
          in.need(key), w.need(key++);
          s.loads.push_back({ctx.root(L.inputs[0]), band_load(ctx, L, t, part, in.now())});
          s.loads.push_back({ctx.root(L.weight), weight_slice(ctx, L, t, part, w.now())});
          depth_conv(ctx, L, p, t, part, in.now(), w.now(), s);
          steps.push_back(std::move(s));
        }
      }
    }
  return steps;
}

}  // namespace

std::vector<Step> gen_conv3d(GenCtx& ctx, const LayerSpec& L) {
  const Conv3dPlan q = conv3d_plan(ctx, L);
  switch (q.order) {
    case DepthOrder::WeightsResident: return gen_weights_resident(ctx, L, q);
    case DepthOrder::InputResident: return gen_input_resident(ctx, L, q);
    case DepthOrder::PerTap: break;
  }
  return gen_per_tap(ctx, L, q);
}

}  // namespace npu::compiler::codegen
