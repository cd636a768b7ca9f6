// ELTWISE layers on the vector unit (Add, Sub, Mul, Div, Pow, Max, Min; numpy broadcasting of
// b). Reference: docs/compiler.md "Code generation".
#include <algorithm>

#include "backend/codegen/layer_codegen.hpp"

namespace npu::compiler::codegen {

using isa::Opcode;

// ELTWISE: a and the output stream in chunks. b streams with a when it has the same
// shape; a broadcast b (b_elems elements, e.g. an SE gate's [1,C,1,1] or a bias row) is
// loaded once with the first chunk and stays resident. SRAM: [b] a a [b b] out out.
std::vector<Step> gen_eltwise(GenCtx& ctx, const LayerSpec& L) {
  const bool bcast = L.b_elems > 0;
  const std::uint64_t A = ctx.addr(L.inputs[0]), B = ctx.addr(L.inputs[1]), Y = ctx.addr(L.output);
  const std::uint64_t b_bytes = bcast ? L.b_elems * ctx.e : 0;
  const std::uint64_t table = L.requant.empty() ? 0 : align_up(ctx.bytes_of(L.requant), ctx.opt.align_bytes);  // int8 add / mul table
  const std::uint64_t chunk = ctx.chunk_elems(L, L.elems, bcast ? 2 : 3, align_up(b_bytes, ctx.opt.align_bytes) + table);
  const std::uint64_t t = chunk * ctx.e;
  const auto o = ctx.place({b_bytes, t, t, bcast ? 0 : t, bcast ? 0 : t, t, t, table});
  const std::uint32_t bs = o[0], a0 = o[1], a1 = o[2], b0 = o[3], b1 = o[4], o0 = o[5], o1 = o[6];
  ctx.info.tile = std::to_string(chunk) + " elems" +
               (bcast ? ", b resident (" + std::to_string(L.b_elems) + ")" : std::string());
  ctx.info.loop_order = "streaming";
  std::vector<Step> steps;
  for (std::uint64_t e0 = 0, i = 0; e0 < L.elems; e0 += chunk, ++i) {
    const std::uint64_t n = std::min(chunk, L.elems - e0);
    Step s;
    const std::uint32_t sa = i % 2 ? a1 : a0, so = i % 2 ? o1 : o0;
    const std::uint32_t sb = bcast ? bs : (i % 2 ? b1 : b0);
    if (bcast && i == 0) s.loads.push_back({ctx.root(L.inputs[1]), dma_rows(B, bs, L.b_elems, 1, 0, ctx.e)});
    isa::Requant rq;
    ctx.add_table(L, s, o[7], rq, i == 0);
    s.loads.push_back({ctx.root(L.inputs[0]), dma_rows(A + e0 * ctx.e, sa, n, 1, 0, ctx.e)});
    if (!bcast) s.loads.push_back({ctx.root(L.inputs[1]), dma_rows(B + e0 * ctx.e, sb, n, 1, 0, ctx.e)});
    isa::EltwiseParams ep;
    ep.op = L.eltwise;
    ep.a_addr = sa;
    ep.b_addr = sb;
    ep.out_addr = so;
    ep.elems = std::uint32_t(n);
    if (bcast) {
      ep.b_elems = std::uint32_t(L.b_elems);
      ep.b_inner = std::uint32_t(L.b_inner);
      ep.b_offset = e0;
    }
    ep.requant = rq;
    s.compute.op = Opcode::Eltwise;
    s.compute.params = ep;
    s.stores.push_back({ctx.root(L.output), dma_rows(Y + e0 * ctx.e, so, n, 1, 0, ctx.e)});
    steps.push_back(std::move(s));
  }
  return steps;
}

}  // namespace npu::compiler::codegen
