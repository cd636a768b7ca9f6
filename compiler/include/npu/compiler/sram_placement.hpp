// Bank-aware SRAM placement of the buffers one layer keeps live at the same time
// (input/weight/output tiles and their ping-pong halves). Pure function of sizes, the SRAM
// capacity and its bank count, so it is unit tested by hand arithmetic.
//
// The SRAM model (hw_models/include/npu/hw/sram/sram_timing.hpp) gives each of `banks`
// banks a contiguous slice of ceil(capacity / banks) bytes with one read and one write
// port; two units touching the same port of the same bank in the same cycles serialise.
// Packing buffers from address 0 puts them all in bank 0 once the SRAM is large, so the
// DMA filling the next input tile and the array reading the current one wait for each
// other. Placing each buffer at the start of banks of its own removes those conflicts.
// Reference: docs/compiler.md "SRAM placement".
#pragma once

#include <cstdint>
#include <vector>

namespace npu::compiler {

struct SramPlacement {
  /// Byte offset of each buffer (same order as the sizes given); a zero-size buffer gets
  /// the offset where it would start in the packed layout.
  std::vector<std::uint32_t> offset;
  /// Bytes of the packed layout (each buffer at the next multiple of align_bytes after the
  /// previous one): what the layer needs, used to decide whether a tiling fits.
  std::uint64_t packed_bytes = 0;
  /// True when every non-empty buffer starts at a bank boundary and no two share a bank.
  bool bank_exclusive = false;
};

/// Place buffers of `sizes` bytes in an SRAM of `capacity_bytes` with `banks` banks of
/// bank = ceil(capacity / banks) bytes (the SRAM model's mapping). Buffer i needs
/// n_i = ceil(size_i / bank) whole banks; when sum n_i <= banks (and bank is a multiple of
/// align_bytes) buffer i starts at bank (n_0 + ... + n_{i-1}) x bank -- bank-exclusive, so
/// concurrently live buffers never share a bank port. Otherwise the packed layout (offsets
/// from 0, each aligned to align_bytes), which is what fits. capacity_bytes == 0 or
/// banks <= 1: packed. Throws std::invalid_argument if align_bytes == 0.
SramPlacement place_sram_buffers(const std::vector<std::uint64_t>& sizes, std::uint64_t capacity_bytes, int banks,
                                 std::uint32_t align_bytes);

}  // namespace npu::compiler
