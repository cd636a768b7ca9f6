// GEMM tiles (LayerKind::Gemm: Gemm, MatMul): the tile loop is conv.cpp's gen_conv, shared
// with CONV. Reference: docs/compiler.md "Code generation".
#include <algorithm>

#include "backend/codegen/conv_tile.hpp"
#include "npu/compiler/backend/lowering/weight_precision.hpp"

namespace npu::compiler::codegen {

using isa::Opcode;

namespace {

// fuse-norm-prologue: the ACT that normalises a freshly loaded A tile of `rows` whole rows of K
// in place (the loads of later N tiles reuse it normalised), gamma/beta resident at
// p.sram.prologue; ONNX RMSNormalization / LayerNormalization over the last axis.
isa::Instruction norm_prologue(const LayerSpec& L, const ConvTilePlan& p, std::uint32_t tile, int rows) {
  isa::ActParams ap;
  ap.op = L.prologue;
  ap.in_addr = ap.out_addr = tile;
  ap.param_addr = p.sram.prologue;
  ap.elems = std::uint32_t(std::uint64_t(rows) * std::uint64_t(L.geom.c_in));
  ap.channels = rows;
  ap.alpha = L.prologue_eps;
  isa::Instruction in;
  in.op = Opcode::Act;
  in.params = ap;
  return in;
}

// fuse-rope: the LOADs of the cos/sin rows of output rows ro0 .. ro0 + rows - 1 (row r is at
// position r % S of the [S, 2d] table) into `slot`: one DMA per run of consecutive positions.
void rope_table_loads(const GenCtx& ctx, const LayerSpec& L, int ro0, int rows, std::uint32_t slot, Step& s) {
  const std::uint64_t row_elems = 2 * std::uint64_t(L.rope_dim), S = std::uint64_t(L.rope_positions);
  const std::uint64_t row_bytes = row_elems * isa::kParamElemBytes;
  for (std::uint64_t i = 0; i < std::uint64_t(rows);) {
    const std::uint64_t pos = (std::uint64_t(ro0) + i) % S, n = std::min(std::uint64_t(rows) - i, S - pos);
    s.loads.push_back({ctx.root(L.rope_table), dma_rows(ctx.addr(L.rope_table) + pos * row_bytes,
                                                        slot + std::uint32_t(i * row_bytes), row_elems * n, 1, 0,
                                                        isa::kParamElemBytes)});
    i += n;
  }
}

// fuse-rope: the ACT that rotates the output tile [rows, cols] in place before its STORE.
isa::Instruction rope_act(const LayerSpec& L, std::uint32_t tile, std::uint32_t table, int rows, int cols) {
  isa::ActParams ap;
  ap.op = isa::ActOp::Rope;
  ap.in_addr = ap.out_addr = tile;
  ap.param_addr = table;
  ap.elems = std::uint32_t(std::uint64_t(rows) * std::uint64_t(cols));
  ap.channels = rows;
  ap.alpha = float(L.rope_dim);
  isa::Instruction in;
  in.op = Opcode::Act;
  in.params = ap;
  return in;
}

// The LOAD of N-tile t.j of the GEMM weights `tensor` ([K, N]) into SRAM at dst. Constant
// weights are stored pre-tiled: N-tile j is the [K, cot] block at j * co_tile * K. A B computed
// at run time (attention's K^T, V) is stored row-major [K, N] by its producer: N-tile j is K
// rows of cot elements, N apart (a strided LOAD).
void weight_tile_load(const GenCtx& ctx, const LayerSpec& L, const std::string& tensor, const ConvTile& t,
                      std::uint32_t dst, Step& s) {
  const ConvGeom& g = L.geom;
  const std::uint64_t W = ctx.addr(tensor);
  if (gemm_weights_in_weight_dtype(ctx.lg, L, ctx.hw.mac_array))  // docs/config.md "Precisions"
    s.loads.push_back({ctx.root(tensor), dma_rows(W + gemm_weight_bytes(L, std::uint64_t(t.co0), ctx.hw.mac_array), dst,
                                              gemm_weight_bytes(L, std::uint64_t(t.cot), ctx.hw.mac_array), 1, 0, 1)});
  else if (ctx.weight_is_constant(tensor))
    s.loads.push_back({ctx.root(tensor), dma_rows(W + std::uint64_t(t.co0) * g.c_in * ctx.e, dst,
                                              std::uint64_t(t.cot) * g.c_in, 1, 0, ctx.e)});
  else
    s.loads.push_back({ctx.root(tensor), dma_rows(W + std::uint64_t(t.co0) * ctx.e, dst, std::uint64_t(t.cot),
                                              std::uint64_t(g.c_in), std::uint64_t(g.c_out) * ctx.e, ctx.e)});
}

// fuse-swiglu: the gate's weight tile sits in the second half of the weight slot at `up_slot`
// (the tiler sized it for two full [K, co_tile] tiles: TilingOptions::dual_gemm).
std::uint32_t glu_gate_slot(const GenCtx& ctx, const LayerSpec& L, const ConvTilePlan& p, std::uint32_t up_slot) {
  return up_slot + std::uint32_t(std::uint64_t(p.co_tile) * std::uint64_t(L.geom.c_in) * std::uint64_t(ctx.e));
}

// fuse-swiglu: the gate GEMM of tile t: silu(A W_gate) for the tile's [hot, cot] block into the
// residual buffer the up GEMM's epilogue reads as its mul= operand (epilogue(): p.sram.res).
isa::Instruction glu_gate_gemm(const GenCtx& ctx, const LayerSpec& L, const ConvTilePlan& p, const ConvTile& t,
                               std::uint32_t a, std::uint32_t up_slot) {
  isa::GemmParams gp;
  gp.a_addr = a;
  gp.b_addr = glu_gate_slot(ctx, L, p, up_slot);
  gp.out_addr = p.sram.res[t.idx % 2];
  gp.m = t.hot;
  gp.n = t.cot;
  gp.k = L.geom.c_in;
  gp.epilogue.act = isa::ActOp::Silu;
  isa::Instruction in;
  in.op = Opcode::Gemm;
  in.params = gp;
  return in;
}

}  // namespace

void gemm_step(const GenCtx& ctx, const LayerSpec& L, const ConvTilePlan& p, const ConvTile& t, Slots& in, Slots& w,
               Step& s) {
  const ConvGeom& g = L.geom;
  const bool new_rows = in.need(t.r);
  if (new_rows)
    s.loads.push_back({ctx.root(L.inputs[0]), dma_rows(t.X + std::uint64_t(t.ro0) * g.c_in * ctx.e, in.now(),
                                                   std::uint64_t(t.hot) * g.c_in, 1, 0, ctx.e)});
  if (new_rows && L.rope_dim > 0) rope_table_loads(ctx, L, t.ro0, t.hot, p.sram.rope[in.cur], s);
  if (w.need(t.j)) {
    weight_tile_load(ctx, L, L.weight, t, w.now(), s);
    if (!L.glu_gate.empty()) weight_tile_load(ctx, L, L.glu_gate, t, glu_gate_slot(ctx, L, p, w.now()), s);
  }
  // The epilogue's residual or GLU gate (fuse-gemm-epilogue): the output tile's [hot, cot] block
  // of the [M, N] operand, in the same ping-pong slot the CONV residual uses.
  if (!L.residual.empty())
    s.loads.push_back({ctx.root(L.residual), dma_rows(t.R + (std::uint64_t(t.ro0) * g.c_out + t.co0) * ctx.e,
                                                  p.sram.res[t.idx % 2], std::uint64_t(t.cot), std::uint64_t(t.hot),
                                                  std::uint64_t(g.c_out) * ctx.e, ctx.e)});
  isa::GemmParams gp;
  gp.a_addr = in.now();
  gp.b_addr = w.now();
  gp.out_addr = t.out_slot;
  gp.m = t.hot;
  gp.n = t.cot;
  gp.k = g.c_in;
  gp.epilogue = epilogue(L, p, t.co0, t.idx);
  s.compute.op = Opcode::Gemm;
  s.compute.params = gp;
  if (!L.glu_gate.empty()) {  // fuse-swiglu: the gate's tile first, into the mul= buffer
    s.more.push_back(s.compute);
    s.compute = glu_gate_gemm(ctx, L, p, t, in.now(), w.now());
  }
  if (new_rows && L.prologue != isa::ActOp::None) {  // fuse-norm-prologue: normalise the rows first
    s.more.insert(s.more.begin(), s.compute);
    s.compute = norm_prologue(L, p, in.now(), t.hot);
  }
  if (L.rope_dim > 0) s.more.push_back(rope_act(L, t.out_slot, p.sram.rope[in.cur], t.hot, t.cot));
  s.stores.push_back({ctx.root(L.output), dma_rows(t.Y + (std::uint64_t(t.ro0) * g.c_out + t.co0) * ctx.e, t.out_slot,
                                               std::uint64_t(t.cot), std::uint64_t(t.hot),
                                               std::uint64_t(g.c_out) * ctx.e, ctx.e)});
}

}  // namespace npu::compiler::codegen
