// Bank-aware SRAM placement (sram_placement.hpp; docs/compiler.md "SRAM placement").
#include "npu/compiler/backend/tiling/sram_placement.hpp"

#include <algorithm>
#include <stdexcept>

namespace npu::compiler {

std::uint64_t place_sram_buffers(const std::uint64_t* sizes, std::size_t n, std::uint64_t capacity_bytes, int banks,
                                 std::uint64_t interleave_bytes, std::uint32_t align_bytes, std::uint32_t* offset,
                                 bool* bank_exclusive) {
  if (align_bytes == 0) throw std::invalid_argument("place_sram_buffers: align_bytes must be positive");
  *bank_exclusive = false;
  // A power-of-two alignment (every preset's) rounds up with a mask: the divisions were most
  // of this function's time, which the tile searches call for every tiling they consider.
  const std::uint64_t align = align_bytes;
  const bool pow2 = (align & (align - 1)) == 0;
  std::uint64_t cursor = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t at = pow2 ? (cursor + align - 1) & ~(align - 1) : (cursor + align - 1) / align * align;
    offset[i] = std::uint32_t(at);
    if (sizes[i] > 0) cursor = at + sizes[i];
  }
  const std::uint64_t packed_bytes = cursor;
  if (capacity_bytes == 0 || banks <= 1 || packed_bytes > capacity_bytes) return packed_bytes;
  // `bank` below is one granule: a whole bank when the banks are contiguous.
  const std::uint64_t bank_size = (capacity_bytes + std::uint64_t(banks) - 1) / std::uint64_t(banks);
  const std::uint64_t bank = interleave_bytes == 0 ? bank_size : std::min(interleave_bytes, bank_size);
  if (bank % align_bytes != 0) return packed_bytes;
  std::uint64_t need = 0;
  for (std::size_t i = 0; i < n; ++i) need += (sizes[i] + bank - 1) / bank;
  if (need > std::uint64_t(banks)) return packed_bytes;
  // Every non-empty buffer from its own granule on, when each fits below the capacity (the
  // last bank is shorter when banks does not divide it); else the packed offsets stay.
  std::uint64_t next_bank = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (sizes[i] == 0) continue;
    if (next_bank * bank + sizes[i] > capacity_bytes) return packed_bytes;
    next_bank += (sizes[i] + bank - 1) / bank;
  }
  next_bank = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (sizes[i] == 0) continue;
    offset[i] = std::uint32_t(next_bank * bank);
    next_bank += (sizes[i] + bank - 1) / bank;
  }
  *bank_exclusive = true;
  return packed_bytes;
}

SramPlacement place_sram_buffers(const std::vector<std::uint64_t>& sizes, std::uint64_t capacity_bytes, int banks,
                                 std::uint64_t interleave_bytes, std::uint32_t align_bytes) {
  SramPlacement p;
  p.offset.resize(sizes.size());
  p.packed_bytes = place_sram_buffers(sizes.data(), sizes.size(), capacity_bytes, banks, interleave_bytes, align_bytes,
                                      p.offset.data(), &p.bank_exclusive);
  return p;
}

}  // namespace npu::compiler
