// A Conv over NCDHW (LayerSpec::depth): output depth slice od is the sum over kernel depth kd
// of the 2-D convolutions of input slice id = od * s - pad + kd * dil with W[:, :, kd]. Per
// output tile (co tile x row tile of slice od) one CONV per (valid kd, input-channel group),
// accumulated in SRAM as the input-channel split does (acc_out on the first, acc_in + acc_out
// in the middle, acc_in and the whole epilogue on the last), then one STORE. The tile plan is
// the split's (cin_split.hpp, with the unsplit c_in allowed). Loop order: co tile, od, row
// tile, kd, input group. DDR addresses (NCDHW): channel c of depth slice z starts at
// (c D + z) H W elements, so a band's channels are runs at a stride of D H W; W[co, ci, kd]'s
// kh x kw taps start at ((co C + ci) kD + kd) kh kw, loaded as one 3-D LOAD of cot x cit runs.
// Reference: docs/compiler.md "Conv over NCDHW".
#include <algorithm>

#include "backend/codegen/conv_tile.hpp"
#include "backend/codegen/program_size.hpp"
#include "npu/compiler/backend/tiling/cin_split.hpp"

namespace npu::compiler::codegen {

namespace {

// One CONV of the sum: tile t of output slice od, kernel depth kd on input slice id, input
// channels [ci0, ci0 + cit); `first` / `last` of the tile's sum.
struct DepthPart {
  int od = 0, kd = 0, id = 0, ci0 = 0, cit = 0;
  bool first = false, last = false;
};

isa::DmaDesc weight_slice(const GenCtx& ctx, const LayerSpec& L, const ConvTile& t, const DepthPart& q,
                          std::uint32_t sram) {
  const ConvGeom& g = L.geom;
  const std::uint64_t taps = std::uint64_t(g.kh) * g.kw, kd = std::uint64_t(L.depth.kd);
  isa::DmaDesc d;
  d.ddr_addr = ctx.addr(L.weight) + ((std::uint64_t(t.co0) * g.c_in + std::uint64_t(q.ci0)) * kd + q.kd) * taps * ctx.e;
  d.sram_addr = sram;
  d.elem_bytes = ctx.e;
  d.extent = {std::uint32_t(taps), std::uint32_t(q.cit), std::uint32_t(t.cot)};
  d.ddr_stride_bytes = {kd * taps * ctx.e, std::uint64_t(g.c_in) * kd * taps * ctx.e};
  return d;
}

void depth_step(const GenCtx& ctx, const LayerSpec& L, const ConvTilePlan& p, const ConvTile& t, const DepthPart& q,
                long key, Slots& in, Slots& w, Step& s) {
  const ConvGeom& g = L.geom;
  const DepthGeom& dg = L.depth;
  const std::uint64_t plane_in = std::uint64_t(g.h_in) * g.w_in, plane_out = std::uint64_t(g.h_out) * g.w_out;
  const std::uint64_t chan_in = std::uint64_t(dg.d_in) * plane_in * ctx.e;
  const std::uint64_t chan_out = std::uint64_t(dg.d_out) * plane_out * ctx.e;
  const RowBand band = input_band(g, t.ro0, t.hot);
  in.need(key);
  const std::uint64_t x0 = ctx.addr(L.inputs[0]) +
                           ((std::uint64_t(q.ci0) * dg.d_in + q.id) * plane_in + std::uint64_t(band.first_row) * g.w_in) * ctx.e;
  s.loads.push_back({ctx.root(L.inputs[0]),
                     dma_rows(x0, in.now(), std::uint64_t(band.rows) * g.w_in, std::uint64_t(q.cit), chan_in, ctx.e)});
  w.need(key);
  s.loads.push_back({ctx.root(L.weight), weight_slice(ctx, L, t, q, w.now())});
  const std::uint64_t out_off =
      ((std::uint64_t(t.co0) * dg.d_out + q.od) * plane_out + std::uint64_t(t.ro0) * g.w_out) * ctx.e;
  const std::uint64_t rows_out = std::uint64_t(t.hot) * g.w_out;
  if (q.first && !L.residual.empty())
    s.loads.push_back({ctx.root(L.residual), dma_rows(ctx.addr(L.residual) + out_off, p.sram.res[t.idx % 2], rows_out,
                                                      std::uint64_t(t.cot), chan_out, ctx.e)});
  isa::ConvParams cp = band_conv_params(g, band);
  cp.in_addr = in.now();
  cp.w_addr = w.now();
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

}  // namespace

std::vector<Step> gen_conv3d(GenCtx& ctx, const LayerSpec& L) {
  const ConvGeom& g = L.geom;
  const TilingOptions o = conv_layer_options(ctx.opt, ctx.e, L);
  const std::optional<ConvTilePlan> plan = plan_conv_split(g, ctx.cap, o, true);
  if (!plan) ctx.too_big(L, conv_split_min_sram_bytes(g, o), "one output channel x one output row x one input channel");
  const ConvTilePlan& p = *plan;
  ctx.info.tile = p.describe(g) + " x depth " + std::to_string(L.depth.d_out) + " (kd " + std::to_string(L.depth.kd) + ")";
  ctx.info.loop_order = to_string(LoopOrder::WeightsResident);
  ctx.info.sram_bytes = p.sram.total_bytes;
  ctx.info.array_cycles = p.array_cycles * L.depth.taps_run();  // p: one 2-D convolution
  Slots in, w;
  in.addr[0] = p.sram.in[0], in.addr[1] = p.sram.in[1];
  w.addr[0] = p.sram.w[0], w.addr[1] = p.sram.w[1];
  std::vector<Step> steps;
  std::size_t idx = 0;
  long key = 0;
  for (int j = 0; j < p.n_co; ++j)
    for (int od = 0; od < L.depth.d_out; ++od) {
      const std::vector<DepthPart> parts = depth_parts(L, p, od);  // never empty (lower_conv3d)
      for (int r = 0; r < p.n_row; ++r, ++idx) {
        const ConvTile t = conv_tile(ctx, L, p, {j, r, 0}, idx);
        for (const DepthPart& q : parts) {
          Step s;
          if (idx == 0 && q.first) add_resident_params(ctx, L, p, s);
          depth_step(ctx, L, p, t, q, key++, in, w, s);
          steps.push_back(std::move(s));
        }
      }
    }
  return steps;
}

}  // namespace npu::compiler::codegen
