// GenCtx (layer_codegen.hpp): what the per-layer-kind generators share.
#include <algorithm>
#include <limits>

#include "backend/codegen/layer_codegen.hpp"
#include "npu/compiler/backend/tiling/sram_placement.hpp"

namespace npu::compiler::codegen {

bool GenCtx::weight_is_constant(const std::string& t) const {
  // Indexed on first use (the first DDR tensor of a name decides, as a scan would): a scan
  // per GEMM step cost a 7B model's 2000 tensors x 28000 steps of string compares.
  if (weight_kind_.empty())
    for (const auto& d : lg.ddr_tensors) weight_kind_.emplace(d.name, d.kind == isa::TensorKind::Weight);
  const auto it = weight_kind_.find(root(t));
  return it == weight_kind_.end() || it->second;
}

std::vector<std::uint32_t> GenCtx::place(const std::vector<std::uint64_t>& sizes) {
  const SramPlacement pl = place_sram_buffers(sizes, cap, hw.sram.banks, hw.sram.bank_interleave_bytes, opt.align_bytes);
  info.sram_bytes = pl.packed_bytes;
  return pl.offset;
}

// As large as fits, but split into about 8 chunks (>= 16 Ki elements each) for overlap.
std::uint64_t GenCtx::chunk_elems(const LayerSpec& L, std::uint64_t total, int buffers, std::uint64_t reserved) const {
  const std::uint64_t overhead = std::uint64_t(2 * buffers) * opt.align_bytes + reserved;
  const std::uint64_t per_elem = std::uint64_t(2 * buffers) * e;
  if (cap < overhead + per_elem) too_big(L, overhead + per_elem);
  std::uint64_t max_elems = (cap - overhead) / per_elem;
  std::uint64_t want = kStreamChunkElems;
  std::uint64_t c = std::min({total, max_elems, want});
  if (c < total && c > 64) c = c / 64 * 64;
  return std::max<std::uint64_t>(c, 1);
}

void GenCtx::add_table(const LayerSpec& L, Step& s, std::uint32_t slot, isa::Requant& r, bool first) const {
  if (L.requant.empty()) return;
  if (L.kind == LayerKind::Act && L.act == isa::ActOp::ScaleShift) {  // per-channel pairs: loaded per tile
    r = L.int8;
    return;
  }
  // Words of the layer's int8 table (its DDR tensor: one pair, the add's 7 words, a 256 B LUT).
  const std::uint64_t table_words = bytes_of(L.requant) / isa::kParamElemBytes;
  if (first) s.loads.push_back({root(L.requant), dma_rows(addr(L.requant), slot, table_words, 1, 0, isa::kParamElemBytes)});
  r = L.int8;
  r.addr = slot;
}

isa::ActParams GenCtx::copy_act() const {
  isa::ActParams ap;
  if (lg.int8_execution) {
    ap.op = isa::ActOp::Identity;
  } else {
    ap.op = isa::ActOp::Clip;
    ap.alpha = std::numeric_limits<float>::lowest();
    ap.beta = std::numeric_limits<float>::max();
  }
  return ap;
}

}  // namespace npu::compiler::codegen
