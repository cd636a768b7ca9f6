// The scatter form of a GATHER layer (LayerSpec::scatter: a ScatterElements of whole rows,
// lowering/scatter_ops.cpp; docs/isa.md "LOAD gather", docs/compiler.md "Code generation").
// First the data is copied to the output in chunks of whole rows (LOAD, identity ACT, STORE);
// then each step LOADs r indices (int32, or fp32 when computed) and r update rows, passes the
// rows through the vector unit and scatter-STOREs them at their output rows. The STOREs run in
// order on the store queue, so the copy is complete before the first row lands and a repeated
// index keeps the last row (ONNX leaves that case undefined).
#include <algorithm>

#include "backend/codegen/layer_codegen.hpp"

namespace npu::compiler::codegen {

using isa::Opcode;

std::vector<Step> gen_scatter(GenCtx& ctx, const LayerSpec& L) {
  const std::uint64_t row = std::uint64_t(std::max(L.channels, 1)), n_idx = L.in_elems, rows = L.gather_rows;
  const std::uint64_t row_bytes = row * std::uint64_t(ctx.e);
  constexpr std::uint64_t kIndexBytes = 4;  // an index slot: int32 or fp32 (gather.cpp)
  const std::uint64_t in_b = L.gather_index_float ? std::uint64_t(ctx.e) : kIndexBytes;
  // Four index slots, not two: a scatter STORE reads its indices on the store queue, and the
  // token protocol (tokens.cpp) orders STORE i before the LOADs of step i + 4 (st2cp to compute
  // i + 2, cp2ld to the LOADs of i + 4), not before those of step i + 2.
  const std::uint64_t per_row = 4 * row_bytes + 4 * kIndexBytes;
  const std::uint64_t overhead = 8 * std::uint64_t(ctx.opt.align_bytes);
  if (ctx.cap < overhead + per_row) ctx.too_big(L, overhead + per_row);
  const std::uint64_t fit = (ctx.cap - overhead) / per_row;
  const std::uint64_t r = std::max<std::uint64_t>(std::min({std::max(n_idx, rows), fit,
                                                            std::max<std::uint64_t>(kStreamChunkElems / row, 1)}), 1);
  const auto o = ctx.place({r * kIndexBytes, r * kIndexBytes, r * kIndexBytes, r * kIndexBytes, r * row_bytes,
                            r * row_bytes, r * row_bytes, r * row_bytes});
  ctx.info.tile = std::to_string(r) + " rows of " + std::to_string(row) + " elems";
  ctx.info.loop_order = "copy, scatter";
  const std::string &data = L.inputs[0], &idx = L.inputs[1], &upd = L.inputs[2];
  const std::uint64_t Y = ctx.addr(L.output);
  std::vector<Step> steps;
  std::uint64_t i = 0;
  for (std::uint64_t r0 = 0; r0 < rows; r0 += r, ++i) {  // the data, whole rows at a time
    const std::uint64_t n = std::min(r, rows - r0);
    Step s = copy_step(ctx, data, ctx.addr(data) + r0 * row_bytes, o[4 + i % 2], o[6 + i % 2], n * row);
    s.stores.push_back({ctx.root(L.output), dma_rows(Y + r0 * row_bytes, o[6 + i % 2], n * row, 1, 0, ctx.e)});
    steps.push_back(std::move(s));
  }
  for (std::uint64_t i0 = 0; i0 < n_idx; i0 += r, ++i) {  // the update rows, at their indices
    const std::uint64_t n = std::min(r, n_idx - i0);
    const std::uint32_t si = o[i % 4], so = o[6 + i % 2];
    Step s = copy_step(ctx, upd, ctx.addr(upd) + i0 * row_bytes, o[4 + i % 2], so, n * row);
    s.loads.insert(s.loads.begin(), {ctx.root(idx), dma_rows(ctx.addr(idx) + i0 * in_b, si, n, 1, 0, int(in_b))});
    const isa::DmaDesc d = indexed_rows(ctx, L, Y, so, row, n, row_bytes, si);
    s.stores.push_back({ctx.root(L.output), d});
    steps.push_back(std::move(s));
  }
  return steps;
}

}  // namespace npu::compiler::codegen
