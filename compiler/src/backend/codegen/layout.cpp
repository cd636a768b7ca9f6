// Layout layers: data movement without arithmetic. A strided view (LayerSpec::layout) is
// computed by MOVE (gen_moves, also nearest Resize with a view); the others are costed as a
// streaming copy (gen_layout). Reference: docs/compiler.md "Code generation".
#include <algorithm>
#include <utility>

#include "backend/codegen/layer_codegen.hpp"
#include "npu/compiler/backend/tiling/layout_tiles.hpp"

namespace npu::compiler::codegen {

using isa::DmaDesc;
using isa::Instruction;
using isa::Opcode;

// Layout ops without a MOVE view (Pad, Expand, Tile, Gather, bilinear Resize...; the others go
// to gen_moves), costed only: the input is read once and the output written once, in k steps; step i loads its share of the input,
// one identity vector pass covers the larger of its two shares, and stores its share of
// the output (L.vector_passes identity passes a step when the layer stands for more vector work,
// a paste-masks Loop's bilinear blend). DDR bytes are exact; the DDR access pattern is modelled as contiguous on
// both sides (optimistic for a Transpose's strided side).
std::vector<Step> gen_layout(GenCtx& ctx, const LayerSpec& L) {
  const std::uint64_t Y = ctx.addr(L.output);
  // The inputs, read one after the other (a Concat along an inner axis has several).
  std::vector<std::pair<std::string, std::uint64_t>> src;  // tensor, elements it contributes
  for (const auto& in : L.inputs) src.push_back({in, L.inputs.size() == 1 ? L.in_elems : ctx.bytes_of(in) / ctx.e});
  auto load_range = [&](Step& s, std::uint64_t r0, std::uint64_t r1, std::uint32_t sram) {
    std::uint64_t base = 0;
    for (const auto& [t, n] : src) {
      const std::uint64_t lo = std::max(r0, base), hi = std::min(r1, base + n);
      if (hi > lo) s.loads.push_back({ctx.root(t), dma_rows(ctx.addr(t) + (lo - base) * ctx.e, std::uint32_t(sram + (lo - r0) * ctx.e), hi - lo, 1, 0, ctx.e)});
      base += n;
    }
  };
  const std::uint64_t in_total = std::max<std::uint64_t>(L.in_elems, 1), out_total = std::max<std::uint64_t>(L.elems, 1);
  const std::uint64_t big = std::max(in_total, out_total);
  const std::uint64_t chunk = ctx.chunk_elems(L, big, 2, 0);
  const std::uint64_t k = (big + chunk - 1) / chunk;
  const std::uint64_t t = chunk * ctx.e;
  const auto o = ctx.place({t, t, t, t});
  const std::uint32_t in0 = o[0], in1 = o[1], out0 = o[2], out1 = o[3];
  ctx.info.tile = std::to_string(chunk) + " elems";
  ctx.info.loop_order = "streaming";
  std::vector<Step> steps;
  for (std::uint64_t i = 0; i < k; ++i) {
    // Shares of the input; with fewer input elements than steps (Expand of a small tensor)
    // the first steps load one element each, so step 0 always loads.
    const std::uint64_t r0 = in_total < k ? std::min(i, in_total) : in_total * i / k;
    const std::uint64_t r1 = in_total < k ? std::min(i + 1, in_total) : in_total * (i + 1) / k;
    const std::uint64_t w0 = out_total * i / k, w1 = out_total * (i + 1) / k;
    const std::uint32_t si = i % 2 ? in1 : in0, so = i % 2 ? out1 : out0;
    Step s;
    if (r1 > r0) load_range(s, r0, r1, si);
    isa::ActParams ap;
    ap.op = isa::ActOp::Identity;
    ap.in_addr = si;
    ap.out_addr = so;
    ap.elems = std::uint32_t(std::max(r1 - r0, w1 - w0));
    ap.channels = 1;
    s.compute.op = Opcode::Act;
    s.compute.params = ap;
    for (int v = 1; v < L.vector_passes; ++v) s.more.push_back(s.compute);  // LayerSpec::vector_passes
    if (w1 > w0) s.stores.push_back({ctx.root(L.output), dma_rows(Y + w0 * ctx.e, so, w1 - w0, 1, 0, ctx.e)});
    steps.push_back(std::move(s));
  }
  return steps;
}

// Layout ops with a strided view (LayerSpec::layout): computed by MOVE, tiled by
// plan_layout_tiles. Per tile: strided LOADs of each piece's input box into the input slot,
// one MOVE per piece into the output slot, one STORE of the output range. Double-buffered
// like every streaming layer (two input and two output slots).
std::vector<Step> gen_moves(GenCtx& ctx, const LayerSpec& L) {
  const std::uint64_t overhead = 4 * ctx.opt.align_bytes;
  if (ctx.cap < overhead + 4 * std::uint64_t(ctx.e)) ctx.too_big(L, overhead + 4 * std::uint64_t(ctx.e));
  const std::uint64_t max_tile = (ctx.cap - overhead) / (2 * std::uint64_t(ctx.e));  // in + out elements of one buffer
  const std::uint64_t burst_elems = std::uint64_t(std::max(ctx.opt.burst_bytes, 1)) / std::uint64_t(ctx.e);
  const auto plan = plan_layout_tiles(L.layout, max_tile, kStreamChunkElems, std::max<std::uint64_t>(burst_elems, 1));
  if (!plan) {
    std::uint64_t block = 0;
    for (const auto& p : L.layout) block += p.dims.empty() ? 1 : p.dims.back();
    ctx.too_big(L, overhead + 4 * block * std::uint64_t(ctx.e));
  }
  const std::uint64_t in_b = plan->in_slot_elems * ctx.e, out_b = plan->out_slot_elems * ctx.e;
  const auto o = ctx.place({in_b, in_b, out_b, out_b});
  ctx.info.tile = plan->describe;
  ctx.info.loop_order = "streaming";
  const std::uint64_t Y = ctx.addr(L.output);
  std::vector<Step> steps;
  for (std::size_t i = 0; i < plan->tiles.size(); ++i) {
    const LayoutTile& t = plan->tiles[i];
    const std::uint32_t si = i % 2 ? o[1] : o[0], so = i % 2 ? o[3] : o[2];
    Step s;
    for (const LayoutTile::Load& ld : t.loads) {
      const std::string& in = L.layout[ld.piece].input;
      DmaDesc d;
      d.ddr_addr = ctx.addr(in) + ld.in_elem * ctx.e;
      d.sram_addr = std::uint32_t(si + ld.slot_elem * ctx.e);
      d.elem_bytes = ctx.e;
      d.extent = ld.extent;
      d.ddr_stride_bytes = {ld.stride[0] * ctx.e, ld.stride[1] * ctx.e};
      s.loads.push_back({ctx.root(in), d});
    }
    for (std::size_t k = 0; k < t.moves.size(); ++k) {
      isa::MoveParams m = t.moves[k];
      m.in_addr = std::uint32_t(si + std::uint64_t(m.in_addr) * ctx.e);
      m.out_addr = std::uint32_t(so + std::uint64_t(m.out_addr) * ctx.e);
      Instruction mv;
      mv.op = Opcode::Move;
      mv.params = m;
      if (k == 0) s.compute = mv;
      else s.more.push_back(mv);
    }
    s.stores.push_back({ctx.root(L.output), dma_rows(Y + t.out_first * ctx.e, so, t.out_elems, 1, 0, ctx.e)});
    steps.push_back(std::move(s));
  }
  return steps;
}

}  // namespace npu::compiler::codegen
