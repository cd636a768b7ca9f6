// RESIZE layers without a MOVE view (nearest upsampling by integer factors; the others are
// layout.cpp's gen_moves). Reference: docs/compiler.md "Code generation".
#include <algorithm>

#include "backend/codegen/layer_codegen.hpp"

namespace npu::compiler::codegen {

using isa::Opcode;

// Nearest upsampling by integer factors in a coordinate mode without a MOVE view (the others
// go to gen_moves): LOAD the input tile once, one vector-unit pass over the output tile, STORE
// it once. The pass is an identity ACT (Clip to the whole float range) over the output's
// elements, so the replication is implied by the tile shapes, not computed (functional_problems
// refuses a run with data); the ACT's in operand is sized like its output (sram_operands), so
// the input slot is that big. Traffic and vector-unit time are right.
std::vector<Step> gen_resize(GenCtx& ctx, const LayerSpec& L) {
  const ConvGeom& g = L.geom;
  const std::uint64_t C = std::uint64_t(g.c_in);
  const std::uint64_t out_plane_elems = std::uint64_t(g.h_out) * g.w_out;
  auto footprint = [&](std::uint64_t ct, int in_rows) {
    return 4 * align_up(ct * std::uint64_t(in_rows) * L.resize_h * g.w_out * ctx.e, ctx.opt.align_bytes);
  };
  std::uint64_t ct = 1;
  int rows = g.h_in;
  if (footprint(1, g.h_in) <= ctx.cap) {
    const std::uint64_t fit = ctx.cap / footprint(1, g.h_in);
    ct = std::min({C, std::max<std::uint64_t>(fit, 1),
                   std::max<std::uint64_t>(std::uint64_t(ceil_div(std::int64_t(C), 8)), 1)});
    while (ct > 1 && footprint(ct, g.h_in) > ctx.cap) --ct;
  } else {
    while (rows > 1 && footprint(1, rows) > ctx.cap) rows = (rows + 1) / 2;
    if (footprint(1, rows) > ctx.cap) ctx.too_big(L, footprint(1, 1));
  }
  const std::uint64_t slot = ct * std::uint64_t(rows) * L.resize_h * g.w_out * ctx.e;
  const auto o = ctx.place({slot, slot, slot, slot});
  const std::uint32_t i0 = o[0], i1 = o[1], o0 = o[2], o1 = o[3];
  ctx.info.tile = std::to_string(ct) + "c x " + std::to_string(rows) + "r in -> x" + std::to_string(L.resize_h) +
               "," + std::to_string(L.resize_w);
  ctx.info.loop_order = "streaming";
  const std::uint64_t X = ctx.addr(L.inputs[0]), Y = ctx.addr(L.output);
  std::vector<Step> steps;
  std::uint64_t i = 0;
  for (std::uint64_t c0 = 0; c0 < C; c0 += ct)
    for (int r0 = 0; r0 < g.h_in; r0 += rows, ++i) {
      const std::uint64_t n = std::min(ct, C - c0);
      const int hr = std::min(rows, g.h_in - r0);
      const std::uint32_t si = i % 2 ? i1 : i0, so = i % 2 ? o1 : o0;
      Step s;
      s.loads.push_back({ctx.root(L.inputs[0]),
                         dma_rows(X + (c0 * g.h_in + std::uint64_t(r0)) * g.w_in * ctx.e, si, std::uint64_t(hr) * g.w_in,
                             n, std::uint64_t(g.h_in) * g.w_in * ctx.e, ctx.e)});
      const std::uint64_t out_rows = std::uint64_t(hr) * L.resize_h;
      isa::ActParams ap = ctx.copy_act();
      ap.in_addr = si;
      ap.out_addr = so;
      ap.elems = std::uint32_t(n * out_rows * g.w_out);
      ap.channels = int(n);
      s.compute.op = Opcode::Act;
      s.compute.params = ap;
      s.stores.push_back({ctx.root(L.output),
                          dma_rows(Y + (c0 * out_plane_elems + std::uint64_t(r0) * L.resize_h * g.w_out) * ctx.e, so,
                              out_rows * g.w_out, n, out_plane_elems * ctx.e, ctx.e)});
      steps.push_back(std::move(s));
    }
  return steps;
}

}  // namespace npu::compiler::codegen
