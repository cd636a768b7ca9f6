// Bank-aware SRAM placement (sram_placement.hpp; docs/compiler.md "SRAM placement").
#include "npu/compiler/backend/tiling/sram_placement.hpp"

#include <algorithm>
#include <stdexcept>

namespace npu::compiler {

SramPlacement place_sram_buffers(const std::vector<std::uint64_t>& sizes, std::uint64_t capacity_bytes, int banks,
                                 std::uint64_t interleave_bytes, std::uint32_t align_bytes) {
  if (align_bytes == 0) throw std::invalid_argument("place_sram_buffers: align_bytes must be positive");
  SramPlacement p;
  p.offset.resize(sizes.size());
  std::uint64_t cursor = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const std::uint64_t at = (cursor + align_bytes - 1) / align_bytes * align_bytes;
    p.offset[i] = std::uint32_t(at);
    if (sizes[i] > 0) cursor = at + sizes[i];
  }
  p.packed_bytes = cursor;
  if (capacity_bytes == 0 || banks <= 1 || p.packed_bytes > capacity_bytes) return p;
  // `bank` below is one granule: a whole bank when the banks are contiguous.
  const std::uint64_t bank_size = (capacity_bytes + std::uint64_t(banks) - 1) / std::uint64_t(banks);
  const std::uint64_t bank = interleave_bytes == 0 ? bank_size : std::min(interleave_bytes, bank_size);
  if (bank % align_bytes != 0) return p;
  std::uint64_t need = 0;
  for (std::uint64_t s : sizes) need += (s + bank - 1) / bank;
  if (need > std::uint64_t(banks)) return p;
  std::vector<std::uint32_t> spread = p.offset;
  std::uint64_t next_bank = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) continue;
    spread[i] = std::uint32_t(next_bank * bank);
    // The last bank is shorter when banks does not divide the capacity.
    if (next_bank * bank + sizes[i] > capacity_bytes) return p;
    next_bank += (sizes[i] + bank - 1) / bank;
  }
  p.offset = std::move(spread);
  p.bank_exclusive = true;
  return p;
}

}  // namespace npu::compiler
