// GATHER layers: a Gather of a constant table by run-time indices (a token embedding), as
// gather LOADs of the selected rows (docs/isa.md "LOAD gather", docs/compiler.md "Code
// generation"). Each step loads r indices (int32, or fp32 when computed), gathers their r table rows into SRAM, passes
// them through the vector unit (the identity ACT every copy uses) and stores them.
#include <algorithm>

#include "backend/codegen/layer_codegen.hpp"

namespace npu::compiler::codegen {

using isa::Opcode;

isa::DmaDesc indexed_rows(const GenCtx& ctx, const LayerSpec& L, std::uint64_t ddr_addr, std::uint32_t sram_addr,
                          std::uint64_t row, std::uint64_t n, std::uint64_t row_bytes, std::uint32_t index_addr) {
  isa::DmaDesc d;
  d.ddr_addr = ddr_addr;
  d.sram_addr = sram_addr;
  d.elem_bytes = ctx.e;
  d.extent = {std::uint32_t(row), std::uint32_t(n), 1};
  d.ddr_stride_bytes = {row_bytes, 0};
  d.gather = true;
  d.index_addr = index_addr;
  d.gather_rows = std::uint32_t(L.gather_rows);
  d.index_float = L.gather_index_float ? 4 : 0;
  return d;
}

std::vector<Step> gen_gather(GenCtx& ctx, const LayerSpec& L) {
  const std::uint64_t row = std::uint64_t(std::max(L.channels, 1)), n_idx = L.in_elems;
  const std::uint64_t row_bytes = row * std::uint64_t(ctx.e);
  // An index slot is 4 B: int32 (a graph input's, ddr_image.cpp stores them so) or fp32 (computed
  // at the activation width). The index LOAD reads the tensor's own width (`in_b`: 4, or e when
  // computed; only fp32 programs run with data, where both are 4).
  constexpr std::uint64_t kIndexBytes = 4;
  const std::uint64_t in_b = L.gather_index_float ? std::uint64_t(ctx.e) : kIndexBytes;
  // Rows per step: row buffers (2 in, 2 out) and two index slots of 4 B a row must fit.
  const std::uint64_t per_row = 4 * row_bytes + 2 * kIndexBytes;
  const std::uint64_t overhead = 6 * std::uint64_t(ctx.opt.align_bytes);
  if (ctx.cap < overhead + per_row) ctx.too_big(L, overhead + per_row);
  const std::uint64_t fit = (ctx.cap - overhead) / per_row;
  const std::uint64_t want = std::max<std::uint64_t>(kStreamChunkElems / row, 1);
  const std::uint64_t r = std::max<std::uint64_t>(std::min({n_idx, fit, want}), 1);
  const auto o = ctx.place({r * kIndexBytes, r * kIndexBytes, r * row_bytes, r * row_bytes, r * row_bytes,
                            r * row_bytes});
  ctx.info.tile = std::to_string(r) + " rows of " + std::to_string(row) + " elems";
  ctx.info.loop_order = "gather";
  const std::string& idx = L.inputs[0];
  std::vector<Step> steps;
  for (std::uint64_t i0 = 0, i = 0; i0 < n_idx; i0 += r, ++i) {
    const std::uint64_t n = std::min(r, n_idx - i0);
    const std::uint32_t si = o[i % 2], sr = o[2 + i % 2], so = o[4 + i % 2];
    Step s;
    s.loads.push_back({ctx.root(idx), dma_rows(ctx.addr(idx) + i0 * in_b, si, n, 1, 0, int(in_b))});
    const isa::DmaDesc g = indexed_rows(ctx, L, ctx.addr(L.weight), sr, row, n, row_bytes, si);
    s.loads.push_back({ctx.root(L.weight), g});
    isa::ActParams ap = ctx.copy_act();
    ap.in_addr = sr;
    ap.out_addr = so;
    ap.elems = std::uint32_t(n * row);
    s.compute.op = Opcode::Act;
    s.compute.params = ap;
    s.stores.push_back({ctx.root(L.output), dma_rows(ctx.addr(L.output) + i0 * row_bytes, so, n * row, 1, 0, ctx.e)});
    steps.push_back(std::move(s));
  }
  return steps;
}

}  // namespace npu::compiler::codegen
