// CONV and GEMM layers on the MAC array: the tile plan (tiling.hpp plan_conv), the loop order
// (weights- or input-resident, per batch), the resident parameters, and each CONV tile's
// LOADs, CONV and STORE (GEMM tiles: gemm.cpp). Reference: docs/compiler.md "Code generation".
#include <algorithm>
#include <tuple>

#include <fmt/format.h>

#include "backend/codegen/conv_tile.hpp"
#include "backend/codegen/program_size.hpp"
#include "npu/compiler/backend/tiling/cin_split.hpp"

namespace npu::compiler::codegen {

using isa::Opcode;

namespace {

// A layer whose smallest tile's partial sums (one output channel x one output row of w_out,
// tiling.cpp fits_accumulator) overflow the accumulator compiles with no sram.capacity: throws
// ConfigError naming accumulator.capacity, the need and the fix (it was reported as an SRAM
// problem, advising an SRAM already larger than asked for).
void check_accumulator_fits(const GenCtx& ctx, const LayerSpec& L, const TilingOptions& o) {
  if (o.accumulator_bytes == 0) return;  // no separate accumulator: partial sums live in SRAM
  const std::uint64_t need = std::uint64_t(L.geom.w_out) * std::uint64_t(o.accumulator_elem_bytes);
  if (need <= o.accumulator_bytes) return;
  throw ConfigError(fmt::format(
      "{}: error: layer '{}' ({}) cannot fit even one minimal tile in the accumulator: its partial sums need {} "
      "bytes (one output channel x one output row of {} values x {} bytes), accumulator.capacity is {} bytes\n  fix: "
      "increase accumulator.capacity to at least {} bytes",
      ctx.hw.source, L.name, L.op_type, need, L.geom.w_out, o.accumulator_elem_bytes, o.accumulator_bytes, need));
}

// Throws TooBig for a CONV/GEMM whose minimal tile does not fit; where the params region
// (reserved_param_bytes_per_channel x every output channel, kept resident for the whole layer:
// docs/compiler.md "SRAM layout") is most of the need, the message says so (GPT-2's head on the
// Gemmini presets: 402,056 of 405,249 B are params for 50,257 output channels).
[[noreturn]] void too_big_conv(const GenCtx& ctx, const LayerSpec& L, const TilingOptions& o) {
  const std::uint64_t need = conv_min_sram_bytes(L.geom, o);
  const std::uint64_t params = std::uint64_t(o.reserved_param_bytes_per_channel) * std::uint64_t(L.geom.c_out);
  if (L.rope_dim > 0) {  // fuse-rope's whole-head N tiles: name the pass and what fits without it
    TilingOptions plain = o;
    plain.co_multiple = 1;
    plain.rope_row_bytes = 0;
    const std::uint64_t without = conv_min_sram_bytes(L.geom, plain);
    if (without <= ctx.cap)
      ctx.too_big(L, need, {},
                  fmt::format("fuse-rope rotates this GEMM's output in its epilogue, so each tile holds whole heads of {} "
                              "columns and their cos/sin rows; without fuse-rope its minimal tile needs {} bytes and "
                              "fits: use a strategy without fuse-rope (a strategy file listing the others)",
                              L.rope_dim, without));
  }
  if (2 * params < need) ctx.too_big(L, need);
  ctx.too_big(L, need, {},
              fmt::format("{} of them are the params region, {} B reserved for each of its {} output channels and kept "
                          "in SRAM for the whole layer, whether or not it has a bias; the rest of the tile needs {} bytes",
                          params, o.reserved_param_bytes_per_channel, L.geom.c_out, need - params));
}

// The layer's tile plan (plan_conv); records it in ctx.info. Throws TooBig when no tile fits
// the SRAM, ConfigError when none can fit the accumulator.
ConvTilePlan conv_plan(GenCtx& ctx, const LayerSpec& L) {
  const ConvGeom& g = L.geom;
  const TilingOptions o = conv_layer_options(ctx.opt, ctx.e, L);
  // The input-channel split (cin_split.hpp) where no whole-input-channel tile fits or where it
  // is estimated clearly faster (plan_conv_layer); refused only when one output channel x one
  // row x one input channel does not fit either.
  const bool dense = L.kind == LayerKind::Conv;
  auto plan = plan_conv_layer(g, ctx.cap, o, dense, &ctx.info.split_reason);
  const bool split = o.cin_split && dense && cin_split_applies(g) && (!plan || plan->n_ci > 1);
  if (conv_min_sram_bytes(g, o) > ctx.cap) ctx.unsplit_need = std::max(ctx.unsplit_need, conv_min_sram_bytes(g, o));
  if (!plan) check_accumulator_fits(ctx, L, o);
  if (!plan && split)
    ctx.too_big(L, conv_split_min_sram_bytes(g, o), "one output channel x one output row x one input channel");
  if (!plan) too_big_conv(ctx, L, o);
  const ConvTilePlan& p = *plan;
  ctx.info.tile = p.describe(g);
  ctx.info.loop_order = to_string(p.order);  // (a batch may switch it)
  ctx.info.sram_bytes = p.sram.total_bytes;
  ctx.info.array_cycles = p.n_ci > 1 ? p.array_cycles
                                     : conv_array_cycles(g, p.co_tile, p.rows_tile, ctx.hw.mac_array,
                                                         ctx.hw.act_unit.lanes) *
                                             (L.glu_gate.empty() ? 1 : 2);  // fuse-swiglu: two GEMMs a tile
  return p;
}

// True when the layer runs weights-resident (co tile outermost).
bool conv_weights_resident(const GenCtx& ctx, const LayerSpec& L, const ConvTilePlan& p) {
  const ConvGeom& g = L.geom;
  if (!(L.batch > 1 && L.kind == LayerKind::Conv && g.group == 1)) return p.order == LoopOrder::WeightsResident;
  // The plan's order is chosen for one image. With N images and the same tiles,
  // weights-resident (co tile outermost) loads the weights once and each image's input
  // n_co times; input-resident (image, row tile outermost) loads each input once and the
  // weights N x n_row times (once when they fit in one tile). Take the cheaper.
  const std::uint64_t wb = std::uint64_t(g.c_out) * g.cin_per_group() * g.kh * g.kw * ctx.e;
  const std::uint64_t ib = std::uint64_t(g.c_in) * g.h_in * g.w_in * ctx.e;
  const std::uint64_t n = std::uint64_t(L.batch);
  const std::uint64_t wr = wb + (p.n_co > 1 ? std::uint64_t(p.n_co) : 1) * n * ib;
  const std::uint64_t ir = (p.n_co > 1 || p.n_row > 1 ? n * std::uint64_t(p.n_row) : 1) * wb + n * ib;
  return wr <= ir;
}

}  // namespace

TilingOptions conv_layer_options(const TilingOptions& opt, int act_bytes, const LayerSpec& L) {
  TilingOptions o = opt;
  o.act_bytes = act_bytes;
  o.residual = !L.residual.empty() || !L.glu_gate.empty();  // fuse-swiglu: the gate buffer
  o.dual_gemm = !L.glu_gate.empty();
  o.in_scale = !L.in_scale.empty();
  if (!L.prologue_params.empty())  // fuse-norm-prologue: gamma[K] (then beta[K]) resident
    o.prologue_param_bytes = isa::act_param_elems(L.prologue, 1, std::uint64_t(L.geom.c_in)) * isa::kParamElemBytes;
  if (L.rope_dim > 0) {  // fuse-rope: whole heads per N tile, each tile row's cos/sin in SRAM
    o.co_multiple = L.rope_dim;
    o.rope_row_bytes = 2 * std::uint64_t(L.rope_dim) * isa::kParamElemBytes;
  }
  // int8: the requantisation pairs (8 B per channel) sit after the bias in the params block.
  if (!L.requant.empty()) o.reserved_param_bytes_per_channel = std::max(o.reserved_param_bytes_per_channel, 12);
  o.batch = std::max(L.batch, 1);
  return o;
}

std::vector<std::tuple<int, int, int>> conv_tile_order(const ConvTilePlan& p, int images, bool weights_resident) {
  std::vector<std::tuple<int, int, int>> order;
  if (weights_resident) {
    for (int j = 0; j < p.n_co; ++j)
      for (int b = 0; b < images; ++b)
        for (int r = 0; r < p.n_row; ++r) order.emplace_back(j, r, b);
  } else {
    for (int b = 0; b < images; ++b)
      for (int r = 0; r < p.n_row; ++r)
        for (int j = 0; j < p.n_co; ++j) order.emplace_back(j, r, b);
  }
  return order;
}

ConvTile conv_tile(const GenCtx& ctx, const LayerSpec& L, const ConvTilePlan& p, const std::tuple<int, int, int>& jrb,
                   std::size_t idx) {
  const ConvGeom& g = L.geom;
  const std::uint64_t plane_in = std::uint64_t(g.h_in) * g.w_in * ctx.e;
  const std::uint64_t plane_out = std::uint64_t(g.h_out) * g.w_out * ctx.e;
  ConvTile t;
  std::tie(t.j, t.r, t.b) = jrb;
  t.idx = idx;
  // Image b's input, output and residual (NCHW: images one after another).
  t.X = ctx.addr(L.inputs[0]) + std::uint64_t(t.b) * g.c_in * plane_in;
  t.Y = ctx.addr(L.output) + std::uint64_t(t.b) * g.c_out * plane_out;
  t.R = L.residual.empty() ? 0 : ctx.addr(L.residual) + std::uint64_t(t.b) * g.c_out * plane_out;
  t.co0 = t.j * p.co_tile, t.cot = std::min(p.co_tile, g.c_out - t.co0);
  t.ro0 = t.r * p.rows_tile, t.hot = std::min(p.rows_tile, g.h_out - t.ro0);
  t.out_slot = p.sram.out[idx % 2];
  return t;
}

void add_resident_params(const GenCtx& ctx, const LayerSpec& L, const ConvTilePlan& p, Step& s) {
  const ConvGeom& g = L.geom;
  if (!L.in_scale.empty())
    s.loads.push_back({ctx.root(L.in_scale), dma_rows(ctx.addr(L.in_scale), p.sram.in_scale, std::uint64_t(g.c_in), 1, 0, ctx.e)});
  if (!L.bias.empty())
    s.loads.push_back({ctx.root(L.bias), dma_rows(ctx.addr(L.bias), p.sram.params, std::uint64_t(g.c_out), 1, 0,
                                              isa::kParamElemBytes)});
  if (!L.requant.empty())
    s.loads.push_back({ctx.root(L.requant), dma_rows(ctx.addr(L.requant), requant_base(p, g), 2 * std::uint64_t(g.c_out), 1,
                                                 0, isa::kParamElemBytes)});
  if (!L.prologue_params.empty())  // fuse-norm-prologue: gamma[K] (then beta[K])
    s.loads.push_back({ctx.root(L.prologue_params),
                       dma_rows(ctx.addr(L.prologue_params), p.sram.prologue,
                                isa::act_param_elems(L.prologue, 1, std::uint64_t(g.c_in)), 1, 0, isa::kParamElemBytes)});
}

namespace {

// A CONV tile: the input band (all input channels, or a grouped conv's slice), the weights
// of its output channels, the residual, the CONV and the output's STORE.
void conv_step(const GenCtx& ctx, const LayerSpec& L, const ConvTilePlan& p, const ConvTile& t, bool weights_resident,
               Slots& in, Slots& w, Step& s) {
  const ConvGeom& g = L.geom;
  const int cpg_in = g.cin_per_group(), cpg_out = g.cout_per_group();
  const std::uint64_t plane_in = std::uint64_t(g.h_in) * g.w_in * ctx.e;
  const std::uint64_t plane_out = std::uint64_t(g.h_out) * g.w_out * ctx.e;
  const RowBand band = input_band(g, t.ro0, t.hot);
  // Input channels this tile computes on, and the ones its LOAD brings in.
  const bool grouped_slice = g.group > 1 && weights_resident;
  const int cin0 = g.group == 1 ? 0 : t.co0 / cpg_out * cpg_in;
  const int cint = g.group == 1 ? g.c_in : t.cot / cpg_out * cpg_in;
  const int load_c0 = grouped_slice ? cin0 : 0;
  const int load_cn = grouped_slice ? cint : g.c_in;
  const long in_key = (grouped_slice ? long(t.j) * p.n_row + t.r : long(t.r)) + long(t.b) * p.n_row * (p.n_co + 1);
  if (in.need(in_key))
    s.loads.push_back(
        {ctx.root(L.inputs[0]),
         dma_rows(t.X + (std::uint64_t(load_c0) * g.h_in + std::uint64_t(band.first_row)) * g.w_in * ctx.e, in.now(),
                  std::uint64_t(band.rows) * g.w_in, std::uint64_t(load_cn), plane_in, ctx.e)});
  const std::uint64_t w_per_oc = std::uint64_t(cpg_in) * g.kh * g.kw;
  if (w.need(t.j))
    s.loads.push_back({ctx.root(L.weight), dma_rows(ctx.addr(L.weight) + std::uint64_t(t.co0) * w_per_oc * ctx.e, w.now(),
                                                std::uint64_t(t.cot) * w_per_oc, 1, 0, ctx.e)});
  const std::uint64_t out_off = (std::uint64_t(t.co0) * g.h_out + std::uint64_t(t.ro0)) * g.w_out * ctx.e;
  if (!L.residual.empty())
    s.loads.push_back({ctx.root(L.residual), dma_rows(t.R + out_off, p.sram.res[t.idx % 2], std::uint64_t(t.hot) * g.w_out,
                                                  std::uint64_t(t.cot), plane_out, ctx.e)});
  isa::ConvParams cp = band_conv_params(g, band);
  cp.in_addr = in.now() + (grouped_slice || g.group == 1
                               ? 0
                               : std::uint32_t(std::uint64_t(cin0) * band.rows * g.w_in * ctx.e));
  cp.w_addr = w.now();
  cp.out_addr = t.out_slot;
  cp.c_in = cint;
  cp.c_out = t.cot;
  cp.group = g.group == 1 ? 1 : t.cot / cpg_out;
  cp.epilogue = epilogue(L, p, t.co0, t.idx);
  if (!L.in_scale.empty()) {
    cp.epilogue.has_in_scale = true;
    cp.epilogue.in_scale_addr = p.sram.in_scale + std::uint32_t(std::uint64_t(cin0) * ctx.e);
  }
  s.compute.op = Opcode::Conv;
  s.compute.params = cp;
  s.stores.push_back({ctx.root(L.output), dma_rows(t.Y + out_off, t.out_slot, std::uint64_t(t.hot) * g.w_out,
                                               std::uint64_t(t.cot), plane_out, ctx.e)});
}

}  // namespace

isa::Epilogue epilogue(const LayerSpec& L, const ConvTilePlan& p, int co0, std::size_t idx) {
  isa::Epilogue ep;
  if (!L.bias.empty()) {
    ep.has_bias = true;
    ep.bias_addr = p.sram.params + std::uint32_t(co0) * isa::kParamElemBytes;
  }
  if (!L.residual.empty() || !L.glu_gate.empty()) {  // fuse-swiglu: mul= the gate computed into SRAM
    const bool mul = L.residual_mul || !L.glu_gate.empty();
    (mul ? ep.has_mul : ep.has_residual) = true;
    (mul ? ep.mul_addr : ep.residual_addr) = p.sram.res[idx % 2];
  }
  ep.act = L.act;
  ep.act_alpha = L.act_alpha;
  ep.act_beta = L.act_beta;
  if (!L.requant.empty()) {
    ep.requant = L.int8;
    ep.requant.addr = requant_base(p, L.geom) + std::uint32_t(co0) * std::uint32_t(isa::Requant::kPairBytes);
  }
  return ep;
}

std::vector<Step> gen_conv(GenCtx& ctx, const LayerSpec& L) {
  const ConvTilePlan p = conv_plan(ctx, L);
  if (p.n_ci > 1) return gen_conv_split(ctx, L, p);
  const bool weights_resident = conv_weights_resident(ctx, L, p);
  const int images = std::max(L.batch, 1);
  ctx.info.array_cycles *= std::uint64_t(images);
  ctx.info.loop_order = to_string(weights_resident ? LoopOrder::WeightsResident : LoopOrder::InputResident);
  Slots in, w;
  in.addr[0] = p.sram.in[0];
  in.addr[1] = p.sram.in[1];
  w.addr[0] = p.sram.w[0];
  w.addr[1] = p.sram.w[1];
  const std::vector<std::tuple<int, int, int>> order = conv_tile_order(p, images, weights_resident);
  std::vector<Step> steps;
  for (std::size_t idx = 0; idx < order.size(); ++idx) {
    const ConvTile t = conv_tile(ctx, L, p, order[idx], idx);
    Step s;
    if (idx == 0) add_resident_params(ctx, L, p, s);
    if (L.kind == LayerKind::Gemm) gemm_step(ctx, L, p, t, in, w, s);
    else conv_step(ctx, L, p, t, weights_resident, in, w, s);
    steps.push_back(std::move(s));
  }
  return steps;
}

}  // namespace npu::compiler::codegen
