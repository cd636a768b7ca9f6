// COPY layers: the Concat inputs that could not be placed in the concat buffer, copied
// through the vector unit. Reference: docs/compiler.md "Code generation".
#include <algorithm>

#include "backend/codegen/layer_codegen.hpp"

namespace npu::compiler::codegen {

using isa::Opcode;

// One LOAD + identity-ACT step (layer_codegen.hpp copy_step); also the scatter's copies.
Step copy_step(GenCtx& ctx, const std::string& src, std::uint64_t at, std::uint32_t si, std::uint32_t so,
               std::uint64_t elems) {
  Step s;
  s.loads.push_back({ctx.root(src), dma_rows(at, si, elems, 1, 0, ctx.e)});
  isa::ActParams ap = ctx.copy_act();
  ap.in_addr = si;
  ap.out_addr = so;
  ap.elems = std::uint32_t(elems);
  s.compute.op = Opcode::Act;
  s.compute.params = ap;
  return s;
}

// Concat inputs that could not be placed in the concat buffer: copied through the vector
// unit (identity ACT: Clip to the whole float range; in int8 programs of quantised graphs an
// identity ACT without requant, which the int8 data path runs as a byte copy).
std::vector<Step> gen_copy(GenCtx& ctx, const LayerSpec& L) {
  const std::uint64_t Y = ctx.addr(L.output);
  std::vector<Step> steps;
  ctx.info.loop_order = "streaming";
  // One set of four slots (two input, two output) for every input: the steps run on across
  // inputs and the double-buffer tokens pair step i with step i-2, so step i must reuse
  // step i-2's slot even when the input changes (slots placed per input raced: an input's
  // first LOAD overwrote the slot the previous input's last copy was still reading).
  std::vector<std::uint64_t> chunks;
  std::uint64_t widest = 0;
  for (const std::string& in : L.inputs) {
    chunks.push_back(ctx.chunk_elems(L, ctx.bytes_of(in) / std::uint64_t(ctx.e), 2, 0));
    widest = std::max(widest, chunks.back());
  }
  const std::uint64_t used = ctx.info.sram_bytes;
  const auto o = ctx.place({widest * ctx.e, widest * ctx.e, widest * ctx.e, widest * ctx.e});
  const std::uint32_t in0 = o[0], in1 = o[1], out0 = o[2], out1 = o[3];
  ctx.info.sram_bytes = std::max<std::uint64_t>(ctx.info.sram_bytes, used);
  std::uint64_t i = 0;
  for (std::size_t k = 0; k < L.inputs.size(); ++k) {
    const std::string& in = L.inputs[k];
    const std::uint64_t total = ctx.bytes_of(in) / std::uint64_t(ctx.e);
    const std::uint64_t chunk = chunks[k];
    ctx.info.tile = std::to_string(chunk) + " elems";
    for (std::uint64_t e0 = 0; e0 < total; e0 += chunk, ++i) {
      const std::uint64_t n = std::min(chunk, total - e0);
      const std::uint32_t si = i % 2 ? in1 : in0, so = i % 2 ? out1 : out0;
      Step s = copy_step(ctx, in, ctx.addr(in) + e0 * ctx.e, si, so, n);
      s.stores.push_back({ctx.root(L.output), dma_rows(Y + L.dest_offsets[k] + e0 * ctx.e, so, n, 1, 0, ctx.e)});
      steps.push_back(std::move(s));
    }
  }
  return steps;
}

}  // namespace npu::compiler::codegen
