// ELTWISE layers on the vector unit (Add, Sub, Mul, Div, Pow, Max, Min; numpy broadcasting of
// b). Reference: docs/compiler.md "Code generation".
#include <algorithm>

#include "backend/codegen/layer_codegen.hpp"

namespace npu::compiler::codegen {

using isa::Opcode;

namespace {

// How b is held: streamed with a (same shape), resident (a small broadcast b, loaded once), or
// tiled (a broadcast b too large to stay resident: each chunk loads the window of b it uses).
enum class BMode { Streamed, Resident, Tiled };

// A broadcast b stays resident (read from DDR once) whenever it fits beside double-buffered a
// and output chunks of at least min(elems, 64) elements: an SE gate's [1,C,1,1], a bias row,
// a causal mask on a large SRAM. Only a b too large for that (a causal mask [1,1,S,S] against
// [1,H,S,S] scores on a small SRAM, which used to refuse the layer) is tiled with a, at the
// cost of reading b once per period (H times for the mask).
BMode b_mode(const GenCtx& ctx, const LayerSpec& L, std::uint64_t table) {
  if (L.b_elems == 0) return BMode::Streamed;
  const std::uint64_t b_bytes = align_up(L.b_elems * std::uint64_t(ctx.e), ctx.opt.align_bytes);
  const std::uint64_t streams = 4 * ctx.opt.align_bytes + 4 * std::uint64_t(ctx.e) * std::min<std::uint64_t>(L.elems, 64);
  return b_bytes + table + streams <= ctx.cap ? BMode::Resident : BMode::Tiled;
}

// The b window of output elements [e0, e0 + n) when b is tiled: the chunk lies within one
// period of b (b_elems x b_inner output elements), so its b indices (e0 + k) / b_inner mod
// b_elems are the consecutive first .. first + count - 1 (count <= n).
struct BWindow {
  std::uint64_t first = 0, count = 0, offset = 0;  ///< offset: the instruction's b_offset
};

BWindow b_window(const LayerSpec& L, std::uint64_t e0, std::uint64_t n) {
  const std::uint64_t period = L.b_elems * L.b_inner;
  BWindow w;
  w.first = (e0 % period) / L.b_inner;
  w.count = ((e0 % period) + n - 1) / L.b_inner - w.first + 1;
  w.offset = e0 % period - w.first * L.b_inner;  // ((offset + k) / inner) = window index of k
  return w;
}

}  // namespace

// ELTWISE: a and the output stream in chunks. b streams with a when it has the same shape; a
// broadcast b (b_elems elements) is loaded once with the first chunk and stays resident when
// it fits (b_mode), else each chunk loads only the b elements it uses (a chunk never crosses a
// period of b, so its window is one contiguous run). SRAM: [b] a a [b b] out out [table].
std::vector<Step> gen_eltwise(GenCtx& ctx, const LayerSpec& L) {
  const std::uint64_t A = ctx.addr(L.inputs[0]), B = ctx.addr(L.inputs[1]), Y = ctx.addr(L.output);
  const std::uint64_t table = L.requant.empty() ? 0 : align_up(ctx.bytes_of(L.requant), ctx.opt.align_bytes);  // int8 add / mul table
  const BMode mode = b_mode(ctx, L, table);
  const bool resident = mode == BMode::Resident;
  const std::uint64_t b_bytes = resident ? L.b_elems * ctx.e : 0;
  const std::uint64_t chunk = ctx.chunk_elems(L, L.elems, resident ? 2 : 3, align_up(b_bytes, ctx.opt.align_bytes) + table);
  const std::uint64_t t = chunk * ctx.e;
  const auto o = ctx.place({b_bytes, t, t, resident ? 0 : t, resident ? 0 : t, t, t, table});
  const std::uint32_t bs = o[0], a0 = o[1], a1 = o[2], b0 = o[3], b1 = o[4], o0 = o[5], o1 = o[6];
  ctx.info.tile = std::to_string(chunk) + " elems" +
                  (resident ? ", b resident (" + std::to_string(L.b_elems) + ")"
                            : mode == BMode::Tiled ? ", b tiled (" + std::to_string(L.b_elems) + ")" : std::string());
  ctx.info.loop_order = "streaming";
  const std::uint64_t period = mode == BMode::Tiled ? L.b_elems * L.b_inner : L.elems;
  std::vector<Step> steps;
  for (std::uint64_t e0 = 0, i = 0; e0 < L.elems; ++i) {
    const std::uint64_t n = std::min({chunk, L.elems - e0, period - e0 % period});
    Step s;
    const std::uint32_t sa = i % 2 ? a1 : a0, so = i % 2 ? o1 : o0;
    const std::uint32_t sb = resident ? bs : (i % 2 ? b1 : b0);
    if (resident && i == 0) s.loads.push_back({ctx.root(L.inputs[1]), dma_rows(B, bs, L.b_elems, 1, 0, ctx.e)});
    isa::Requant rq;
    ctx.add_table(L, s, o[7], rq, i == 0);
    s.loads.push_back({ctx.root(L.inputs[0]), dma_rows(A + e0 * ctx.e, sa, n, 1, 0, ctx.e)});
    isa::EltwiseParams ep;
    ep.op = L.eltwise;
    ep.a_addr = sa;
    ep.b_addr = sb;
    ep.out_addr = so;
    ep.elems = std::uint32_t(n);
    if (mode == BMode::Streamed) s.loads.push_back({ctx.root(L.inputs[1]), dma_rows(B + e0 * ctx.e, sb, n, 1, 0, ctx.e)});
    if (resident) ep.b_elems = std::uint32_t(L.b_elems), ep.b_inner = std::uint32_t(L.b_inner), ep.b_offset = e0;
    if (mode == BMode::Tiled) {
      const BWindow w = b_window(L, e0, n);
      s.loads.push_back({ctx.root(L.inputs[1]), dma_rows(B + w.first * ctx.e, sb, w.count, 1, 0, ctx.e)});
      ep.b_elems = std::uint32_t(w.count), ep.b_inner = std::uint32_t(L.b_inner), ep.b_offset = w.offset;
    }
    ep.requant = rq;
    s.compute.op = Opcode::Eltwise;
    s.compute.params = ep;
    s.stores.push_back({ctx.root(L.output), dma_rows(Y + e0 * ctx.e, so, n, 1, 0, ctx.e)});
    steps.push_back(std::move(s));
    e0 += n;
  }
  return steps;
}

}  // namespace npu::compiler::codegen
