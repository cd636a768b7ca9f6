// ATTENTION layers (fuse-attention): FlashAttention-style (Dao et al. 2022, Algorithm 1) on
// the ISA's existing units. For each (batch x head) and each block of Bq query rows, the Q
// block stays in SRAM while the key blocks (K^T [d, Bk], V [Bk, dv]) stream in; per key block
//   GEMM  S = Q K^T                                   (the array)
//   ACT   softmax_online S -> P, state (m, l, corr)   (alpha = scale, res = the mask tile)
//   ELTWISE O *= corr (per row; not on the first key block)
//   GEMM  O = P V (+ O: the epilogue's residual; not on the first key block)
// and after the last key block ELTWISE O /= l, then one STORE of the O block. The Sq x Sk
// scores never leave SRAM. Causal masks: key blocks past the diagonal are skipped; blocks
// below it read no mask; a full Bq x Bk block crossing it reads one triangle tile kept
// resident. When every key block of a head fits beside the rest, K and V are loaded once per
// head (resident), else once per query block. With a key view (AttentionGeom::key_view) the
// K rows are loaded as they lie in the Transpose's input and a MOVE writes the K^T block in
// SRAM: K^T never goes to DDR. Grouped-query attention (AttentionGeom::group = g): query head
// h reads KV head h / g, and a group's g query heads run one after another, so resident K/V
// blocks are loaded once per KV head. Without a mask (or causal with one query row: decode)
// the g heads' query rows are stacked into one query block of g Sq rows against the same K/V
// (their rows lie contiguous in Q and O), so streamed K/V are read once per KV head too; with
// a mask, streamed K/V blocks are used by the group's query heads in turn (their Q, O and
// online-softmax state each held in SRAM), one load each. Q, V and O may be head views
// (AttentionGeom::query, value, out): their blocks' rows are loaded or stored where they lie in
// the [B, S, H, n] tensor a head Transpose read or wrote, H n elements apart (strided DMA, no
// MOVE). docs/compiler.md "fuse-attention".
#include <algorithm>

#include <fmt/format.h>

#include "backend/codegen/layer_codegen.hpp"
#include "npu/isa/cost/gemv_mapping.hpp"

namespace npu::compiler::codegen {

namespace {

using isa::Opcode;
using u64 = std::uint64_t;

/// Block sizes and the SRAM layout of one attention layer.
struct FlashPlan {
  u64 b = 0;                  // rows of a query block and columns of a key block
  u64 nq = 0, nk = 0;         // query blocks, key blocks per head
  bool resident = false;      // every key block of a head stays in SRAM (two head regions)
  u64 qg = 1;                 // streamed GQA: query heads of one KV head that share each K/V block
  bool triangle = false;      // full crossing blocks share one resident causal tile
  std::vector<std::uint32_t> off;  // Q0 Q1 KV0 KV1 M0 M1 S STATE O0 O1 TRI K0 K1
};

enum Buf { kQ0, kQ1, kKv0, kKv1, kM0, kM1, kS, kState, kO0, kO1, kTri, kK0, kK1, kBufs };

u64 ceil_div(u64 a, u64 b) { return (a + b - 1) / b; }

// Buffer sizes (bytes) for block size b: K/V regions hold `kv_blocks` key blocks each; the Q,
// O and state buffers hold `qg` query heads' blocks each.
std::vector<u64> buffer_sizes(const AttentionGeom& a, u64 b, u64 kv_blocks, bool mask, bool tri, u64 e, u64 qg = 1) {
  const u64 bq = std::min(b, a.sq), bk = std::min(b, a.sk);
  const u64 kv = kv_blocks * bk * (a.d + a.dv) * e;
  const u64 m = mask ? bq * bk * e : 0;
  const u64 k_rows = a.key.view ? bk * a.d * e : 0;  // a key view's rows before the in-SRAM transpose
  return {qg * bq * a.d * e, qg * bq * a.d * e, kv, kv, m, m, bq * bk * e, qg * 3 * bq * isa::kParamElemBytes,
          qg * bq * a.dv * e, qg * bq * a.dv * e, tri ? bq * bk * e : 0, k_rows, k_rows};
}

u64 total(const std::vector<u64>& s, u64 align) {
  u64 t = 0;
  for (u64 x : s) t += (x + align - 1) / align * align;
  return t;
}

// `v` for g consecutive heads stacked as one head of g sq rows, or false when its rows do not
// follow one another that way: packed Q [B H, Sq, d] holds head h's rows at (h Sq + i) d, so
// KV head k's query rows are the g Sq rows from k g Sq; a view's heads are interleaved row by
// row (X [B, Sq, H, d]), which stacks only with one row per head (Sq = 1: row h of the stack).
bool stack_heads(HeadView& v, u64 g, u64 sq) {
  if (v.view && sq > 1) return false;
  v.heads /= g;
  if (sq == 1) v.stride_row = v.stride_h;
  v.stride_h *= g;
  return true;
}

// The geometry the blocks walk: a group's g query heads stacked as g Sq rows of one head when
// no mask row depends on the query row (no mask, or causal with Sq = 1: every key visible)
// and Q's and O's rows stack (stack_heads).
AttentionGeom stacked_groups(const AttentionGeom& a, bool mask) {
  const bool rows_alike = !mask || (a.causal_offset >= 0 && a.sq == 1);
  if (a.group < 2 || !rows_alike) return a;
  AttentionGeom s = a;
  if (!stack_heads(s.query, a.group, a.sq) || !stack_heads(s.out, a.group, a.sq)) return a;
  s.heads = a.heads / a.group;
  s.sq = a.sq * a.group;
  s.group = 1;
  return s;
}

// `rows` rows of n elements from row r of head bh of `v` in the tensor at `base`, into SRAM
// `sram` (or out of it: DMA descriptors name both ends): one run when the rows are contiguous.
isa::DmaDesc head_rows(u64 base, std::uint32_t sram, const HeadView& v, u64 bh, u64 r, u64 n, u64 rows, int e) {
  const u64 at = base + v.start(bh, r) * u64(e);
  if (v.stride_row == n || rows == 1) return dma_rows(at, sram, rows * n, 1, 0, e);
  return dma_rows(at, sram, n, rows, v.stride_row * u64(e), e);
}

FlashPlan plan_blocks(GenCtx& ctx, const LayerSpec& L, const AttentionGeom& a) {
  const bool mask = !L.residual.empty();
  const u64 e = u64(ctx.e), al = std::max<u64>(ctx.opt.align_bytes, 1);
  for (u64 b = 128; b >= 1; b /= 2) {
    FlashPlan p;
    p.b = b;
    p.nq = ceil_div(a.sq, b);
    p.nk = ceil_div(a.sk, b);
    p.triangle = mask && a.causal_offset >= 0 && a.causal_offset % std::int64_t(b) == 0 && a.sq >= b && a.sk >= b;
    for (const bool resident : {true, false}) {
      // One query block per KV head: streaming reads K/V once anyway.
      if (resident && p.nq * a.group < 2) continue;
      // Streamed GQA: the group's query heads each take their turn on a K/V block while it is in SRAM.
      const u64 qg = resident ? 1 : a.group;
      const std::vector<u64> sizes = buffer_sizes(a, b, resident ? p.nk : 1, mask, p.triangle, e, qg);
      if (total(sizes, al) > ctx.cap) continue;
      p.resident = resident;
      p.qg = qg;
      p.off = ctx.place(sizes);
      return p;
    }
  }
  ctx.too_big(L, total(buffer_sizes(a, 1, 1, mask, false, e), al));
}

/// The ELTWISE that scales each row of O [rows, dv] by one state word (corr or 1/l).
isa::Instruction row_op(isa::EltwiseOp op, std::uint32_t o, std::uint32_t b, u64 rows, u64 dv) {
  isa::EltwiseParams ep;
  ep.op = op;
  ep.a_addr = ep.out_addr = o;
  ep.b_addr = b;
  ep.elems = std::uint32_t(rows * dv);
  ep.b_elems = std::uint32_t(rows);
  ep.b_inner = std::uint32_t(dv);
  isa::Instruction i;
  i.op = Opcode::Eltwise;
  i.params = ep;
  return i;
}

isa::Instruction gemm(std::uint32_t a, std::uint32_t b, std::uint32_t out, u64 m, u64 n, u64 k) {
  isa::GemmParams gp;
  gp.a_addr = a, gp.b_addr = b, gp.out_addr = out;
  gp.m = int(m), gp.n = int(n), gp.k = int(k);
  isa::Instruction i;
  i.op = Opcode::Gemm;
  i.params = gp;
  return i;
}

/// Walks the blocks of one layer and builds its steps.
class FlashEmitter {
 public:
  FlashEmitter(GenCtx& ctx, const LayerSpec& L, const AttentionGeom& a, const FlashPlan& p)
      : ctx_(ctx), L_(L), a_(a), p_(p) {}

  std::vector<Step> run() {
    for (u64 h = 0; h < a_.heads; h += p_.qg)
      for (u64 qb = 0; qb < p_.nq; ++qb, ++qblock_) query_block(h, qb);
    return std::move(steps_);
  }
  u64 cycles = 0;  // array and vector-unit cycles of every instruction (the report's compute time)

 private:
  // Whether key block kb (columns c0..c0+cols) is past the diagonal of rows r0..r0+rows
  // (skipped), and whether it needs the mask.
  bool skipped(u64 r0, u64 rows, u64 c0) const {
    return a_.causal_offset >= 0 && std::int64_t(c0) > std::int64_t(r0 + rows - 1) + a_.causal_offset;
  }
  bool masked(u64 r0, u64 c0, u64 cols) const {
    if (L_.residual.empty()) return false;
    return a_.causal_offset < 0 || std::int64_t(c0 + cols - 1) > std::int64_t(r0) + a_.causal_offset;
  }

  // Query block qb of heads h .. h + qg - 1 (one KV head's group when K/V stream, else one head):
  // every key block is loaded once and used by each of them in turn.
  void query_block(u64 h, u64 qb) {
    const u64 r0 = qb * p_.b, rows = std::min(p_.b, a_.sq - r0);
    u64 last = 0;
    for (u64 kb = 0; kb < p_.nk; ++kb)
      if (!skipped(r0, rows, kb * p_.b)) last = kb;
    for (u64 kb = 0; kb <= last; ++kb) {
      if (skipped(r0, rows, kb * p_.b)) continue;
      for (u64 r = 0; r < p_.qg; ++r) key_block(h + r, r, r0, rows, kb, kb == 0, kb == last);
    }
  }

  void key_block(u64 h, u64 r, u64 r0, u64 rows, u64 kb, bool first, bool last);
  std::uint32_t load_kv(Step& s, u64 h, u64 kb, u64 cols, bool fresh);
  void load_key_rows(Step& s, u64 h, u64 kb, u64 cols, std::uint32_t kt);
  std::uint32_t load_mask(Step& s, u64 r0, u64 rows, u64 c0, u64 cols);

  GenCtx& ctx_;
  const LayerSpec& L_;
  const AttentionGeom& a_;
  const FlashPlan& p_;
  std::vector<Step> steps_;
  u64 qblock_ = 0;
  long kv_key_ = -1;          // resident: the KV head of the loaded blocks
  u64 kv_loads_ = 0;          // streamed: K/V blocks loaded so far (their region's parity)
  std::uint32_t kv_region_ = 0;  // streamed: the region of the block loaded last
  std::vector<bool> loaded_;  // resident: key blocks of the current head already in SRAM
  bool tri_loaded_ = false;
  std::vector<isa::Instruction> pre_;  // this step's MOVEs before its first GEMM (key views)
};

// A key view: `cols` rows of d contiguous elements, key_stride_j apart in the Transpose's input,
// into the step's staging slot; a MOVE writes them transposed, [d, cols], at `kt`.
void FlashEmitter::load_key_rows(Step& s, u64 h, u64 kb, u64 cols, std::uint32_t kt) {
  const u64 e = u64(ctx_.e);
  const u64 kvh = h / a_.group;
  const u64 row0 = a_.key.start(kvh, kb * p_.b);
  const std::uint32_t stage = p_.off[steps_.size() % 2 ? kK1 : kK0];
  s.loads.push_back({ctx_.root(L_.inputs[1]),
                     dma_rows(ctx_.addr(L_.inputs[1]) + row0 * e, stage, a_.d, cols, a_.key.stride_row * e, ctx_.e)});
  isa::MoveParams mv;
  mv.in_addr = stage;
  mv.out_addr = kt;
  mv.rank = 2;
  mv.extent[0] = std::uint32_t(a_.d), mv.extent[1] = std::uint32_t(cols);
  mv.in_stride[0] = 1, mv.in_stride[1] = std::uint32_t(a_.d);
  mv.out_stride[0] = std::uint32_t(cols), mv.out_stride[1] = 1;
  isa::Instruction i;
  i.op = Opcode::Move;
  i.params = mv;
  pre_.push_back(i);
  cycles += ceil_div(cols * a_.d, u64(std::max(ctx_.hw.act_unit.lanes, 1)));
}

// K^T block: d rows of `cols` keys, sk apart in DDR; V block: `cols` rows of dv (contiguous,
// or H dv apart under a value view).
// Query head h reads KV head h / group; resident blocks stay for the whole group, a streamed
// block for the group's turns on it (`fresh` false: the block loaded last).
std::uint32_t FlashEmitter::load_kv(Step& s, u64 h, u64 kb, u64 cols, bool fresh) {
  const u64 e = u64(ctx_.e), bk = std::min(p_.b, a_.sk), kvh = h / a_.group;
  std::uint32_t region;
  bool need = true;
  if (p_.resident) {
    if (long(kvh) != kv_key_) kv_key_ = long(kvh), loaded_.assign(p_.nk, false);
    region = p_.off[kvh % 2 ? kKv1 : kKv0] + std::uint32_t(kb * bk * (a_.d + a_.dv) * e);
    need = !loaded_[kb];
    loaded_[kb] = true;
  } else if (fresh) {  // the other region than the block before, which a step may still read
    region = kv_region_ = p_.off[kv_loads_++ % 2 ? kKv1 : kKv0];
  } else {
    region = kv_region_;
    need = false;
  }
  if (need) {
    if (a_.key.view) {
      load_key_rows(s, h, kb, cols, region);
    } else {
      const u64 kt = ctx_.addr(L_.inputs[1]) + (kvh * a_.d * a_.sk + kb * p_.b) * e;
      s.loads.push_back({ctx_.root(L_.inputs[1]), dma_rows(kt, region, cols, a_.d, a_.sk * e, ctx_.e)});
    }
    s.loads.push_back({ctx_.root(L_.inputs[2]), head_rows(ctx_.addr(L_.inputs[2]), region + std::uint32_t(a_.d * cols * e),
                                                          a_.value, kvh, kb * p_.b, a_.dv, cols, ctx_.e)});
  }
  return region;
}

// The mask tile [rows, cols] at (r0, c0) of the [sq, sk] mask: the resident triangle for a
// full block crossing a causal diagonal, else loaded into the step's slot.
std::uint32_t FlashEmitter::load_mask(Step& s, u64 r0, u64 rows, u64 c0, u64 cols) {
  const u64 e = u64(ctx_.e);
  const bool tri = p_.triangle && rows == p_.b && cols == p_.b;
  const std::uint32_t slot = tri ? p_.off[kTri] : p_.off[steps_.size() % 2 ? kM1 : kM0];
  if (tri && tri_loaded_) return slot;
  tri_loaded_ = tri_loaded_ || tri;
  s.loads.push_back({ctx_.root(L_.residual),
                     dma_rows(ctx_.addr(L_.residual) + (r0 * a_.sk + c0) * e, slot, cols, rows, a_.sk * e, ctx_.e)});
  return slot;
}

// Key block kb for query head h, the r-th of the heads sharing it (its Q, O and state slot).
void FlashEmitter::key_block(u64 h, u64 r, u64 r0, u64 rows, u64 kb, bool first, bool last) {
  const u64 e = u64(ctx_.e), c0 = kb * p_.b, cols = std::min(p_.b, a_.sk - c0), bq = std::min(p_.b, a_.sq);
  const std::uint32_t q = p_.off[qblock_ % 2 ? kQ1 : kQ0] + std::uint32_t(r * bq * a_.d * e);
  const std::uint32_t o = p_.off[qblock_ % 2 ? kO1 : kO0] + std::uint32_t(r * bq * a_.dv * e);
  const std::uint32_t st = p_.off[kState] + std::uint32_t(r * 3 * bq * isa::kParamElemBytes), sc = p_.off[kS];
  Step s;
  if (first)
    s.loads.push_back({ctx_.root(L_.inputs[0]), head_rows(ctx_.addr(L_.inputs[0]), q, a_.query, h, r0, a_.d, rows, ctx_.e)});
  const std::uint32_t kv = load_kv(s, h, kb, cols, r == 0);
  const bool mask = masked(r0, c0, cols);
  const std::uint32_t m = mask ? load_mask(s, r0, rows, c0, cols) : 0;
  std::vector<isa::Instruction> seq = std::move(pre_);
  pre_.clear();
  seq.push_back(gemm(q, kv, sc, rows, cols, a_.d));
  isa::ActParams ap;
  ap.op = isa::ActOp::SoftmaxOnline;
  ap.in_addr = ap.out_addr = sc;
  ap.param_addr = st;
  ap.elems = std::uint32_t(rows * cols);
  ap.channels = int(rows);
  ap.alpha = L_.act_alpha;
  ap.beta = first ? 1.0f : 0.0f;
  ap.has_residual = mask;
  ap.residual_addr = m;
  isa::Instruction act;
  act.op = Opcode::Act;
  act.params = ap;
  seq.push_back(act);
  if (!first) seq.push_back(row_op(isa::EltwiseOp::Mul, o, st + std::uint32_t(2 * rows * 4), rows, a_.dv));
  isa::Instruction pv = gemm(sc, kv + std::uint32_t(a_.d * cols * e), o, rows, a_.dv, cols);
  if (!first) {
    auto& ep = std::get<isa::GemmParams>(pv.params).epilogue;
    ep.has_residual = true;
    ep.residual_addr = o;
  }
  seq.push_back(pv);
  if (last) {
    seq.push_back(row_op(isa::EltwiseOp::Div, o, st + std::uint32_t(rows * 4), rows, a_.dv));
    s.stores.push_back({ctx_.root(L_.output), head_rows(ctx_.addr(L_.output), o, a_.out, h, r0, a_.dv, rows, ctx_.e)});
  }
  s.compute = seq.front();
  s.more.assign(seq.begin() + 1, seq.end());
  const int lanes = std::max(ctx_.hw.act_unit.lanes, 1);
  cycles += u64(isa::gemm_cycles(std::int64_t(rows), std::int64_t(cols), std::int64_t(a_.d), ctx_.hw.mac_array, lanes)) +
            u64(isa::gemm_cycles(std::int64_t(rows), std::int64_t(a_.dv), std::int64_t(cols), ctx_.hw.mac_array, lanes)) +
            2 * ceil_div(rows * cols, u64(lanes)) + (u64(!first) + u64(last)) * ceil_div(rows * a_.dv, u64(lanes));
  steps_.push_back(std::move(s));
}

}  // namespace

// How K/V move, for the report's tile column: per (KV) head resident, or streamed, and for
// grouped-query attention whether a group shares them.
std::string kv_movement(const AttentionGeom& layer, const AttentionGeom& a, const FlashPlan& p) {
  if (layer.group < 2) return p.resident ? "resident per head" : "streamed";
  if (a.group == 1)
    return fmt::format("{} per KV head (GQA: its {} query heads stacked as rows)", p.resident ? "resident" : "streamed",
                       layer.group);
  if (p.resident) return fmt::format("resident per KV head (GQA: shared by its {} query heads)", layer.group);
  return fmt::format("streamed, each block used by its KV head's {} query heads in turn (GQA)", layer.group);
}

std::vector<Step> gen_attention(GenCtx& ctx, const LayerSpec& L) {
  const AttentionGeom a = stacked_groups(L.attention, !L.residual.empty());
  const FlashPlan p = plan_blocks(ctx, L, a);
  FlashEmitter em(ctx, L, a, p);
  std::vector<Step> steps = em.run();
  ctx.info.array_cycles = em.cycles;
  ctx.info.tile = fmt::format("{}q x {}k blocks ({}x{} per head), K/V {}", std::min(p.b, a.sq), std::min(p.b, a.sk),
                              p.nq, p.nk, kv_movement(L.attention, a, p));
  ctx.info.loop_order = "flash";
  return steps;
}

}  // namespace npu::compiler::codegen
