// ACT layers on the vector unit: element-wise activations in streaming chunks, the row-wise
// Softmax and LayerNorm in tiles of whole rows, and scale_shift (BatchNorm) in tiles of whole
// channels with their parameters. Reference: docs/compiler.md "Code generation".
#include <algorithm>
#include <numeric>

#include "backend/codegen/layer_codegen.hpp"

namespace npu::compiler::codegen {

namespace {

using isa::Opcode;

// One ACT step over the layer's elements [e0, e0 + n) (`channels` channels), SRAM slot in_s
// -> out_s; an int8 table at `table_slot` loads with the first step (e0 == 0).
Step act_step(const GenCtx& ctx, const LayerSpec& L, std::uint32_t table_slot, std::uint64_t e0, std::uint64_t n,
              int channels, std::uint32_t in_s, std::uint32_t out_s) {
  Step s;
  isa::Requant rq;
  ctx.add_table(L, s, table_slot, rq, e0 == 0);
  s.loads.push_back({ctx.root(L.inputs[0]), dma_rows(ctx.addr(L.inputs[0]) + e0 * ctx.e, in_s, n, 1, 0, ctx.e)});
  isa::ActParams ap;
  ap.op = L.act;
  ap.in_addr = in_s;
  ap.out_addr = out_s;
  ap.elems = std::uint32_t(n);
  ap.channels = channels;
  ap.alpha = L.act_alpha;
  ap.beta = L.act_beta;
  ap.requant = rq;
  s.compute.op = Opcode::Act;
  s.compute.params = ap;
  s.stores.push_back({ctx.root(L.output), dma_rows(ctx.addr(L.output) + e0 * ctx.e, out_s, n, 1, 0, ctx.e)});
  return s;
}

// An element-wise activation: streaming chunks (and the int8 table, resident).
std::vector<Step> gen_elementwise(GenCtx& ctx, const LayerSpec& L) {
  const std::uint64_t table = L.requant.empty() ? 0 : align_up(ctx.bytes_of(L.requant), ctx.opt.align_bytes);  // int8 table
  const std::uint64_t chunk = ctx.chunk_elems(L, L.elems, 2, table);
  const auto o = ctx.place({chunk * ctx.e, chunk * ctx.e, chunk * ctx.e, chunk * ctx.e, table});
  const std::uint32_t in0 = o[0], in1 = o[1], out0 = o[2], out1 = o[3];
  ctx.info.tile = std::to_string(chunk) + " elems";
  std::vector<Step> steps;
  for (std::uint64_t e0 = 0, i = 0; e0 < L.elems; e0 += chunk, ++i) {
    const std::uint64_t n = std::min(chunk, L.elems - e0);
    steps.push_back(act_step(ctx, L, o[4], e0, n, 1, i % 2 ? in1 : in0, i % 2 ? out1 : out0));
  }
  return steps;
}

// Softmax / LayerNorm / RMSNorm: tiles of whole rows (channels = rows of elems/channels);
// LayerNorm's gamma/beta (2 x D params) and RMSNorm's gamma (D) are loaded once with the
// first tile and stay resident.
std::vector<Step> gen_rowwise(GenCtx& ctx, const LayerSpec& L) {
  const std::uint64_t rows = std::max<std::uint64_t>(std::uint64_t(L.channels), 1), d = L.elems / rows;
  const bool ln = L.act == isa::ActOp::LayerNorm || L.act == isa::ActOp::RmsNorm;
  const std::uint64_t pelems = isa::act_param_elems(L.act, L.channels, L.elems);
  const std::uint64_t pbytes = pelems * isa::kParamElemBytes;
  // int8: the requantisation table (softmax's exp table, the norms' eps term and pairs), resident
  const std::uint64_t table = L.requant.empty() ? 0 : ctx.bytes_of(L.requant);
  const std::uint64_t reserved = align_up(pbytes, ctx.opt.align_bytes) + align_up(table, ctx.opt.align_bytes);
  const bool res = !L.residual.empty();  // fuse-add-layernorm: the second summand
  std::uint64_t chunk = ctx.chunk_elems(L, L.elems, res ? 3 : 2, reserved);
  if (chunk < d) ctx.too_big(L, reserved + (res ? 6 : 4) * align_up(d * ctx.e, ctx.opt.align_bytes));
  const std::uint64_t rt = chunk / d;  // rows per tile
  const std::uint64_t t = rt * d * ctx.e;
  const auto o = ctx.place({pbytes, t, t, t, t, res ? t : 0, res ? t : 0, table});
  const std::uint32_t par = o[0], in0 = o[1], in1 = o[2], out0 = o[3], out1 = o[4], res0 = o[5], res1 = o[6];
  ctx.info.tile = std::to_string(rt) + " rows x " + std::to_string(d);
  std::vector<Step> steps;
  for (std::uint64_t r0 = 0, i = 0; r0 < rows; r0 += rt, ++i) {
    const std::uint64_t n = std::min(rt, rows - r0);
    Step s = act_step(ctx, L, o[7], r0 * d, n * d, int(n), i % 2 ? in1 : in0, i % 2 ? out1 : out0);
    if (res) {
      const std::uint32_t rs = i % 2 ? res1 : res0;
      s.loads.push_back({ctx.root(L.residual), dma_rows(ctx.addr(L.residual) + r0 * d * ctx.e, rs, n * d, 1, 0, ctx.e)});
      auto& ap = std::get<isa::ActParams>(s.compute.params);
      ap.has_residual = true;
      ap.residual_addr = rs;
    }
    if (ln) {
      if (i == 0)
        s.loads.insert(s.loads.begin(), Dma{ctx.root(L.scale_shift), dma_rows(ctx.addr(L.scale_shift), par, pelems, 1, 0, int(isa::kParamElemBytes))});
      std::get<isa::ActParams>(s.compute.params).param_addr = par;
    }
    steps.push_back(std::move(s));
  }
  return steps;
}

// scale_shift: adds the params of channels [c0, c0+ct) (and their int8 requantisation pairs,
// double-buffered like the params) to step s, before its data LOAD.
void add_params(const GenCtx& ctx, const LayerSpec& L, Step& s, std::uint64_t c0, std::uint64_t ct, std::uint32_t par,
                std::uint32_t rq_slot) {
  const std::uint64_t C = std::uint64_t(L.channels), pb = isa::kParamElemBytes;
  // scale[c0..c0+ct) then shift[c0..c0+ct): 2 rows of ct elements, C*4 bytes apart.
  s.loads.insert(s.loads.begin(),
                 Dma{ctx.root(L.scale_shift), dma_rows(ctx.addr(L.scale_shift) + c0 * pb, par, ct, 2, C * pb, int(pb))});
  auto& ap = std::get<isa::ActParams>(s.compute.params);
  ap.param_addr = par;
  if (L.requant.empty()) return;
  s.loads.insert(s.loads.begin() + 1, Dma{ctx.root(L.requant), dma_rows(ctx.addr(L.requant) + c0 * isa::Requant::kPairBytes,
                                                                        rq_slot, 2 * ct, 1, 0, isa::kParamElemBytes)});
  ap.requant.addr = rq_slot;
}

// scale_shift's channels per tile of `hw` elements each when at most ct_max fit.
std::uint64_t scale_shift_channels(const GenCtx& ctx, std::uint64_t C, std::uint64_t hw, std::uint64_t ct_max) {
  const std::uint64_t pb = isa::kParamElemBytes;
  // The channel tile: a target that depends on the layer alone (at least 8 steps and
  // 16 Ki elements a step), in whole DDR bursts, and only where the SRAM cannot hold it
  // the most channels that fit. Whole bursts: a tile's scale and shift rows (ct x 4 B)
  // and its data (ct x hw x e B) should each be a multiple of the burst (a partial burst
  // costs a whole one), so the target is rounded down to that quantum q of channels, or
  // up to q where that still leaves 4 steps or more for double buffering (it was rounded
  // up whenever q fitted: MobileNetV2's 32-channel 112x112 BatchNorms took 2 steps of 16
  // from 1 MiB). Independent of the capacity once the target fits; below, fewer channels
  // (MobileNetV2's 96-channel 112x112 BatchNorms: 10 at 512 KiB, the target 16 from 1 MiB,
  // which simulates slower; the program-level candidates keep the smaller SRAM's plan
  // there, sram_plans.hpp).
  const std::uint64_t burst = std::uint64_t(ctx.hw.ddr.burst_bytes());
  auto quantum = [burst](std::uint64_t bytes_per_channel) { return burst / std::gcd(burst, bytes_per_channel); };
  const std::uint64_t q = std::lcm(quantum(pb), quantum(hw * ctx.e));
  std::uint64_t target = std::min(C, std::max<std::uint64_t>(std::uint64_t(ceil_div(std::int64_t(C), 8)),
                                                             std::uint64_t(ceil_div(16384, std::int64_t(hw)))));
  if (target < C && target >= q) target = target / q * q;
  else if (target < q && q < C && ceil_div(std::int64_t(C), std::int64_t(q)) >= 4) target = q;
  std::uint64_t ct = target;
  if (ct > ct_max) ct = ct_max >= q ? ct_max / q * q : ct_max;
  return ct;
}

// scale_shift in tiles of whole channels, loading scale[c0..c0+ct) and shift[c0..c0+ct).
std::vector<Step> gen_scale_shift_channels(GenCtx& ctx, const LayerSpec& L, std::uint64_t ct_max) {
  const std::uint64_t C = std::uint64_t(L.channels), hw = L.elems / C;
  const std::uint64_t pb = isa::kParamElemBytes;
  const bool rq = !L.requant.empty();
  const std::uint64_t pair = isa::Requant::kPairBytes;
  const std::uint64_t ct = scale_shift_channels(ctx, C, hw, ct_max);
  const std::uint64_t tile = ct * hw * ctx.e, rq_bytes = rq ? ct * pair : 0;
  const auto o = ctx.place({tile, tile, tile, tile, 2 * ct * pb, 2 * ct * pb, rq_bytes, rq_bytes});
  const std::uint32_t in0 = o[0], in1 = o[1], out0 = o[2], out1 = o[3], par0 = o[4], par1 = o[5];
  ctx.info.tile = std::to_string(ct) + "c x " + std::to_string(hw) + " elems";
  std::vector<Step> steps;
  for (std::uint64_t c0 = 0, i = 0; c0 < C; c0 += ct, ++i) {
    const std::uint64_t n = std::min(ct, C - c0);
    Step s = act_step(ctx, L, 0, c0 * hw, n * hw, int(n), i % 2 ? in1 : in0, i % 2 ? out1 : out0);
    add_params(ctx, L, s, c0, n, i % 2 ? par1 : par0, i % 2 ? o[7] : o[6]);
    steps.push_back(std::move(s));
  }
  return steps;
}

// scale_shift when not even one channel fits: chunks within each channel, one channel's
// scale/shift each.
std::vector<Step> gen_scale_shift_chunks(GenCtx& ctx, const LayerSpec& L) {
  const std::uint64_t C = std::uint64_t(L.channels), hw = L.elems / C;
  const std::uint64_t pb = isa::kParamElemBytes;
  const bool rq = !L.requant.empty();
  const std::uint64_t pair = isa::Requant::kPairBytes;
  const std::uint64_t chunk =
      ctx.chunk_elems(L, hw, 2, 2 * (ctx.opt.align_bytes + 2 * pb) + (rq ? 2 * (ctx.opt.align_bytes + pair) : 0));
  const auto o = ctx.place({chunk * ctx.e, chunk * ctx.e, chunk * ctx.e, chunk * ctx.e, 2 * pb, 2 * pb, rq ? pair : 0, rq ? pair : 0});
  const std::uint32_t in0 = o[0], in1 = o[1], out0 = o[2], out1 = o[3], par0 = o[4], par1 = o[5];
  ctx.info.tile = "1c x " + std::to_string(chunk) + " elems";
  std::vector<Step> steps;
  std::uint64_t i = 0;
  for (std::uint64_t c = 0; c < C; ++c)
    for (std::uint64_t e0 = 0; e0 < hw; e0 += chunk, ++i) {
      const std::uint64_t n = std::min(chunk, hw - e0);
      Step s = act_step(ctx, L, 0, c * hw + e0, n, 1, i % 2 ? in1 : in0, i % 2 ? out1 : out0);
      add_params(ctx, L, s, c, 1, i % 2 ? par1 : par0, i % 2 ? o[7] : o[6]);
      steps.push_back(std::move(s));
    }
  return steps;
}

}  // namespace

std::vector<Step> gen_act(GenCtx& ctx, const LayerSpec& L) {
  ctx.info.loop_order = "streaming";
  if (isa::is_row_wise(L.act)) return gen_rowwise(ctx, L);
  if (L.act != isa::ActOp::ScaleShift) return gen_elementwise(ctx, L);
  // scale_shift: tiles of whole channels where one fits (with its params, double-buffered).
  const std::uint64_t hw = L.elems / std::uint64_t(L.channels);
  const bool rq = !L.requant.empty();
  const std::uint64_t fixed = (rq ? 8 : 6) * ctx.opt.align_bytes;
  const std::uint64_t per_channel = 2 * (2 * hw * ctx.e + 2 * isa::kParamElemBytes + (rq ? isa::Requant::kPairBytes : 0));
  if (ctx.cap >= fixed + per_channel) return gen_scale_shift_channels(ctx, L, (ctx.cap - fixed) / per_channel);
  return gen_scale_shift_chunks(ctx, L);
}

}  // namespace npu::compiler::codegen
