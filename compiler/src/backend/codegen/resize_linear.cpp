// Bilinear Resize (LayerSpec::taps_h/taps_w, resize_views.cpp) with LOAD, ELTWISE and MOVE,
// rows first, then columns, as the ONNX definition applies the axes one after the other:
//   per tile (np planes x nr output rows, SRAM layout [row][plane][column]):
//   LOAD input rows i0(r) and i1(r) of the np planes into A and B (one strided LOAD each);
//   ELTWISE B = B - A; B = B x wy (per output row, broadcast); A = A + B (rows blended);
//   MOVE column i0(c) of A to column c of A2, column i1(c) to B2 (two per output column);
//   ELTWISE B2 = B2 - A2; B2 = B2 x wx (per output column); A2 = A2 + B2; STORE A2 per row.
// The weights wy[OH] then wx[OW] are one DDR parameter tensor, loaded once. Costs are those of
// these instructions: each output row reads its two input rows from DDR (an input row is read
// by every output row that blends it), the vector unit makes six passes and 2 OW MOVEs a tile.
#include <algorithm>

#include "backend/codegen/layer_codegen.hpp"
#include "backend/codegen/resize_linear_parts.hpp"

namespace npu::compiler::codegen {

using resize_parts::broadcast;
using resize_parts::column_move;
using resize_parts::eltwise;

// Tiles: np planes x nr output rows, as many as fit double-buffered (at most a streaming chunk
// of output elements), planes first.
std::vector<Step> gen_resize_linear(GenCtx& ctx, const LayerSpec& L) {
  const std::uint64_t e = std::uint64_t(ctx.e), overhead = 6 * ctx.opt.align_bytes;
  const std::uint64_t P = std::uint64_t(L.geom.c_in), H = std::uint64_t(L.geom.h_in);
  const std::uint64_t W = std::uint64_t(L.geom.w_in), OH = L.taps_h.w.size(), OW = L.taps_w.w.size();
  const std::uint64_t weights = (OH + OW) * e;
  const std::uint64_t per_row = 2 * (2 * W + 2 * OW) * e;  // A, B, A2, B2 of one (row, plane), twice
  if (ctx.cap < overhead + weights + per_row) ctx.too_big(L, overhead + weights + per_row);
  const std::uint64_t fit = (ctx.cap - overhead - weights) / per_row;  // (row, plane) pairs a tile holds
  const std::uint64_t chunk = std::max<std::uint64_t>(kStreamChunkElems / OW, 1);
  const std::uint64_t np = std::min({P, fit, chunk}), nr = std::max<std::uint64_t>(1, std::min({OH, fit / np, chunk / np}));
  const std::uint64_t in_b = nr * np * W * e, out_b = nr * np * OW * e;
  const auto o = ctx.place({weights, in_b, in_b, in_b, in_b, out_b, out_b, out_b, out_b});
  ctx.info.tile = std::to_string(nr) + " rows x " + std::to_string(np) + " planes of [" + std::to_string(P) + "," +
                  std::to_string(OH) + "," + std::to_string(OW) + "]";
  ctx.info.loop_order = "streaming";
  const std::uint64_t X = ctx.addr(L.inputs[0]), Y = ctx.addr(L.output);
  std::vector<Step> steps;
  for (std::uint64_t p0 = 0; p0 < P; p0 += np)
    for (std::uint64_t r0 = 0; r0 < OH; r0 += nr) {
      const std::uint64_t pn = std::min(np, P - p0), rn = std::min(nr, OH - r0), k = steps.size() % 2;
      const std::uint32_t A = o[1 + 2 * k], B = o[2 + 2 * k], A2 = o[5 + 2 * k], B2 = o[6 + 2 * k];
      const std::uint64_t n_in = rn * pn * W, n_out = rn * pn * OW;
      Step s;
      if (steps.empty()) s.loads.push_back({ctx.root(L.linear_weights), dma_rows(ctx.addr(L.linear_weights), o[0], OH + OW, 1, 0, ctx.e)});
      for (std::uint64_t r = 0; r < rn; ++r) {
        const std::uint64_t row = (p0 * H) * W, slot = r * pn * W * e;
        s.loads.push_back({ctx.root(L.inputs[0]), dma_rows(X + (row + L.taps_h.i0[r0 + r] * W) * e, std::uint32_t(A + slot), W, pn, H * W * e, ctx.e)});
        s.loads.push_back({ctx.root(L.inputs[0]), dma_rows(X + (row + L.taps_h.i1[r0 + r] * W) * e, std::uint32_t(B + slot), W, pn, H * W * e, ctx.e)});
      }
      s.compute = eltwise(isa::EltwiseOp::Sub, B, A, B, n_in);
      s.more.push_back(broadcast(eltwise(isa::EltwiseOp::Mul, B, o[0], B, n_in), OH, pn * W, r0 * pn * W));
      s.more.push_back(eltwise(isa::EltwiseOp::Add, A, B, A, n_in));
      for (std::uint64_t c = 0; c < OW; ++c) {
        s.more.push_back(column_move(std::uint32_t(A + L.taps_w.i0[c] * e), std::uint32_t(A2 + c * e), rn * pn, W, OW));
        s.more.push_back(column_move(std::uint32_t(A + L.taps_w.i1[c] * e), std::uint32_t(B2 + c * e), rn * pn, W, OW));
      }
      s.more.push_back(eltwise(isa::EltwiseOp::Sub, B2, A2, B2, n_out));
      s.more.push_back(broadcast(eltwise(isa::EltwiseOp::Mul, B2, std::uint32_t(o[0] + OH * e), B2, n_out), OW, 1, 0));
      s.more.push_back(eltwise(isa::EltwiseOp::Add, A2, B2, A2, n_out));
      for (std::uint64_t r = 0; r < rn; ++r)
        s.stores.push_back({ctx.root(L.output), dma_rows(Y + ((p0 * OH + r0 + r) * OW) * e, std::uint32_t(A2 + r * pn * OW * e), OW, pn, OH * OW * e, ctx.e)});
      steps.push_back(std::move(s));
    }
  return steps;
}

}  // namespace npu::compiler::codegen
