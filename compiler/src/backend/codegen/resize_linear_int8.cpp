// int8 bilinear Resize (LayerSpec::taps_h/taps_w from linear_resize_taps_int8): TFLite's
// ResizeBilinearInteger bit for bit, with LOAD, MOVE and the integer blend ELTWISE lerp /
// lerp_round (isa::EltwiseOp). With fy of the output row and fx of the output column (10-bit
// fixed point, the layer's int8 table: fy[OH] then fx[OW], int32),
//   s = x[y0,x0](1024-fy)(1024-fx) + x[y1,x0] fy(1024-fx) + x[y0,x1](1024-fy) fx + x[y1,x1] fy fx
//     = (1024 - fy) top + fy bottom,  top = x[y0,x0](1024-fx) + x[y0,x1] fx  (bottom: y1)
//   y = (s + (s > 0 ? 2^19 : -2^19)) / 2^20
// so the columns blend first (lerp, exact int32) and the rows second with the one rounding
// (lerp_round). Per tile (np planes x nr output rows; SRAM layout [row][plane][column]):
//   LOAD input rows y0(r) into the first half of AB and y1(r) into the second (one strided LOAD
//     each per output row);
//   MOVE column x0(c) of AB to column c of LO, column x1(c) to HI (2 OW MOVEs of 2 nr np bytes);
//   ELTWISE lerp LO, HI -> T (int32, 2 nr np OW elements, weight fx[c] per column);
//   ELTWISE lerp_round T[top], T[bottom] -> OUT (int8, nr np OW elements, weight fy[r] per row);
//   STORE OUT per row.
// Cost: the DDR reads of the fp32 path (each output row reads its two input rows); the vector
// unit makes 2 OW MOVEs and two ELTWISE passes (3 nr np OW elements) a tile, against the fp32
// path's six passes. The int32 T is 4 bytes an element in SRAM.
#include <algorithm>

#include "backend/codegen/layer_codegen.hpp"
#include "backend/codegen/resize_linear_parts.hpp"

namespace npu::compiler::codegen {

using resize_parts::broadcast;
using resize_parts::column_move;
using resize_parts::eltwise;

namespace {

isa::Instruction with_table(isa::Instruction in, const isa::Requant& rq, std::uint32_t addr) {
  auto& p = std::get<isa::EltwiseParams>(in.params);
  p.requant = rq;
  p.requant.on = true;
  p.requant.addr = addr;
  return in;
}

}  // namespace

// Tiles: np planes x nr output rows, as many as fit double-buffered (at most a streaming chunk
// of output elements), planes first, as the fp32 generator.
std::vector<Step> gen_resize_linear_int8(GenCtx& ctx, const LayerSpec& L) {
  const std::uint64_t al = ctx.opt.align_bytes, overhead = 11 * al;
  const std::uint64_t P = std::uint64_t(L.geom.c_in), H = std::uint64_t(L.geom.h_in);
  const std::uint64_t W = std::uint64_t(L.geom.w_in), OH = L.taps_h.i0.size(), OW = L.taps_w.i0.size();
  const std::uint64_t table = align_up(ctx.bytes_of(L.requant), al);
  const std::uint64_t per_row = 2 * (2 * W + 13 * OW);  // AB, LO, HI, T (int32), OUT of one (row, plane), twice
  if (ctx.cap < overhead + table + per_row) ctx.too_big(L, overhead + table + per_row);
  const std::uint64_t fit = (ctx.cap - overhead - table) / per_row;  // (row, plane) pairs a tile holds
  const std::uint64_t chunk = std::max<std::uint64_t>(kStreamChunkElems / OW, 1);
  const std::uint64_t np = std::min({P, fit, chunk}), nr = std::max<std::uint64_t>(1, std::min({OH, fit / np, chunk / np}));
  const std::uint64_t in_b = nr * np * W, out_b = nr * np * OW;
  const auto o = ctx.place({table, 2 * in_b, 2 * in_b, 2 * out_b, 2 * out_b, 2 * out_b, 2 * out_b, 8 * out_b, 8 * out_b,
                            out_b, out_b});
  ctx.info.tile = std::to_string(nr) + " rows x " + std::to_string(np) + " planes of [" + std::to_string(P) + "," +
                  std::to_string(OH) + "," + std::to_string(OW) + "] (int8)";
  ctx.info.loop_order = "streaming";
  const std::uint64_t X = ctx.addr(L.inputs[0]), Y = ctx.addr(L.output);
  const std::uint32_t fy = o[0], fx = std::uint32_t(o[0] + OH * isa::kParamElemBytes);
  std::vector<Step> steps;
  for (std::uint64_t p0 = 0; p0 < P; p0 += np)
    for (std::uint64_t r0 = 0; r0 < OH; r0 += nr) {
      const std::uint64_t pn = std::min(np, P - p0), rn = std::min(nr, OH - r0), k = steps.size() % 2;
      const std::uint32_t AB = o[1 + k], LO = o[3 + k], HI = o[5 + k], T = o[7 + k], OUT = o[9 + k];
      const std::uint64_t n_in = rn * pn * W, n_out = rn * pn * OW;
      Step s;
      isa::Requant rq;
      ctx.add_table(L, s, o[0], rq, steps.empty());
      for (std::uint64_t r = 0; r < rn; ++r) {
        const std::uint64_t row = p0 * H * W, slot = r * pn * W;
        s.loads.push_back({ctx.root(L.inputs[0]), dma_rows(X + row + L.taps_h.i0[r0 + r] * W, std::uint32_t(AB + slot), W, pn, H * W, 1)});
        s.loads.push_back({ctx.root(L.inputs[0]), dma_rows(X + row + L.taps_h.i1[r0 + r] * W, std::uint32_t(AB + n_in + slot), W, pn, H * W, 1)});
      }
      for (std::uint64_t c = 0; c < OW; ++c) {
        isa::Instruction lo = column_move(std::uint32_t(AB + L.taps_w.i0[c]), std::uint32_t(LO + c), 2 * rn * pn, W, OW);
        if (c == 0) s.compute = std::move(lo);
        else s.more.push_back(std::move(lo));
        s.more.push_back(column_move(std::uint32_t(AB + L.taps_w.i1[c]), std::uint32_t(HI + c), 2 * rn * pn, W, OW));
      }
      s.more.push_back(with_table(broadcast(eltwise(isa::EltwiseOp::Lerp, LO, HI, T, 2 * n_out), OW, 1, 0), rq, fx));
      const auto bottom = std::uint32_t(T + n_out * isa::kAccElemBytes);
      s.more.push_back(with_table(broadcast(eltwise(isa::EltwiseOp::LerpRound, T, bottom, OUT, n_out), OH, pn * OW, r0 * pn * OW), rq, fy));
      for (std::uint64_t r = 0; r < rn; ++r)
        s.stores.push_back({ctx.root(L.output), dma_rows(Y + (p0 * OH + r0 + r) * OW, std::uint32_t(OUT + r * pn * OW), OW, pn, OH * OW, 1)});
      steps.push_back(std::move(s));
    }
  return steps;
}

}  // namespace npu::compiler::codegen
