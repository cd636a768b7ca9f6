// ConvTranspose's zero insertion (conv_transpose.cpp; LayerSpec::zero_insert), computed by
// MOVE with `zero` (docs/isa.md MOVE): per tile, one LOAD of contiguous input rows, one MOVE
// that clears the tile's output range and scatters the input pixels to (y s_h, x s_w) in it,
// one STORE of the output range. The input is read once and the zero-inserted tensor written
// once (the compulsory bytes), as the streaming copy that costed it before; the vector pass
// covers the zeros too (max(elements moved, zeroed) per MOVE, docs/timing.md).
#include <algorithm>

#include "backend/codegen/layer_codegen.hpp"

namespace npu::compiler::codegen {

namespace {

// A tile: planes [p, p + planes) whole, or (planes == 1) input rows [y0, y1) of plane p.
struct ZeroTile {
  std::uint64_t p = 0, planes = 1, y0 = 0, y1 = 0;
};

// Whole planes per tile when one plane's input and output fit `max_tile` elements (and the
// output a streaming chunk), else bands of input rows (an input row spreads to s_h output rows,
// the last one to 1). Empty when not even one input row fits.
std::vector<ZeroTile> zero_insert_tiles(const ConvGeom& g, std::uint64_t max_tile) {
  const std::uint64_t P = std::uint64_t(g.c_in), H = std::uint64_t(g.h_in), W = std::uint64_t(g.w_in);
  const std::uint64_t plane_in = H * W, plane_out = std::uint64_t(g.h_out) * std::uint64_t(g.w_out);
  const std::uint64_t max_out = std::max<std::uint64_t>(kStreamChunkElems, std::uint64_t(g.w_out));
  std::vector<ZeroTile> tiles;
  if (plane_in + plane_out <= max_tile && plane_out <= max_out) {
    const std::uint64_t per = std::min({P, max_tile / (plane_in + plane_out), max_out / plane_out});
    for (std::uint64_t p = 0; p < P; p += per) tiles.push_back({p, std::min(per, P - p), 0, H});
    return tiles;
  }
  const std::uint64_t row_in = W, row_out = std::uint64_t(g.stride_h) * std::uint64_t(g.w_out);
  if (row_in + std::uint64_t(g.w_out) > max_tile) return tiles;
  const std::uint64_t rows = std::max<std::uint64_t>(1, std::min(max_tile / (row_in + row_out), max_out / row_out));
  for (std::uint64_t p = 0; p < P; ++p)
    for (std::uint64_t y = 0; y < H; y += rows) tiles.push_back({p, 1, y, std::min(H, y + rows)});
  return tiles;
}

}  // namespace

std::vector<Step> gen_zero_insert(GenCtx& ctx, const LayerSpec& L) {
  const ConvGeom& g = L.geom;
  const std::uint64_t H = std::uint64_t(g.h_in), W = std::uint64_t(g.w_in), UH = std::uint64_t(g.h_out),
                      UW = std::uint64_t(g.w_out), sh = std::uint64_t(g.stride_h), sw = std::uint64_t(g.stride_w);
  const std::uint64_t overhead = 4 * ctx.opt.align_bytes, e = std::uint64_t(ctx.e);
  const std::uint64_t max_tile = ctx.cap > overhead ? (ctx.cap - overhead) / (2 * e) : 0;  // in + out of one buffer
  const std::vector<ZeroTile> tiles = zero_insert_tiles(g, max_tile);
  if (tiles.empty()) ctx.too_big(L, overhead + 2 * (W + UW) * e);
  // Output elements of a tile: whole planes, or its rows' s_h output rows each (the plane's
  // last input row: 1).
  auto out_elems = [&](const ZeroTile& t) {
    if (t.y0 == 0 && t.y1 == H) return t.planes * UH * UW;
    return ((t.y1 == H ? (t.y1 - 1 - t.y0) * sh + 1 : (t.y1 - t.y0) * sh)) * UW;
  };
  std::uint64_t in_slot = 0, out_slot = 0;
  for (const ZeroTile& t : tiles) {
    in_slot = std::max(in_slot, t.planes * (t.y1 - t.y0) * W);
    out_slot = std::max(out_slot, out_elems(t));
  }
  const auto o = ctx.place({in_slot * e, in_slot * e, out_slot * e, out_slot * e});
  ctx.info.tile = std::to_string(tiles.front().planes) + " x " + std::to_string(tiles.front().y1 - tiles.front().y0) +
                  " rows of [" + std::to_string(g.c_in) + "," + std::to_string(H) + "," + std::to_string(W) + "]";
  ctx.info.loop_order = "streaming";
  const std::uint64_t X = ctx.addr(L.inputs[0]), Y = ctx.addr(L.output);
  std::vector<Step> steps;
  for (std::size_t i = 0; i < tiles.size(); ++i) {
    const ZeroTile& t = tiles[i];
    const std::uint32_t si = i % 2 ? o[1] : o[0], so = i % 2 ? o[3] : o[2];
    const std::uint64_t n_in = t.planes * (t.y1 - t.y0) * W, n_out = out_elems(t);
    Step s;
    s.loads.push_back({ctx.root(L.inputs[0]), dma_rows(X + (t.p * H + t.y0) * W * e, si, n_in, 1, 0, ctx.e)});
    isa::MoveParams m;
    m.in_addr = si;
    m.out_addr = so;
    m.rank = 3;
    m.extent = {std::uint32_t(W), std::uint32_t(t.y1 - t.y0), std::uint32_t(t.planes), 1, 1, 1};
    m.in_stride = {1, std::uint32_t(W), std::uint32_t(H * W), 0, 0, 0};
    m.out_stride = {std::uint32_t(sw), std::uint32_t(sh * UW), std::uint32_t(UH * UW), 0, 0, 0};
    m.zero = std::uint32_t(n_out);
    s.compute.op = isa::Opcode::Move;
    s.compute.params = m;
    s.stores.push_back({ctx.root(L.output), dma_rows(Y + (t.p * UH + t.y0 * sh) * UW * e, so, n_out, 1, 0, ctx.e)});
    steps.push_back(std::move(s));
  }
  return steps;
}

}  // namespace npu::compiler::codegen
