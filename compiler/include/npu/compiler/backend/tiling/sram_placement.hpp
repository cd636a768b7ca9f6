// Bank-aware SRAM placement of the buffers one layer keeps live at the same time
// (input/weight/output tiles and their ping-pong halves). Pure function of sizes and the
// SRAM's capacity, bank count and interleave, so it is unit tested by hand arithmetic.
//
// The SRAM model (hw_models/include/npu/hw/sram/sram_interleave.hpp) puts byte a in bank
// (a / granule) mod banks, granule = sram.bank_interleave_bytes, each bank with one read and
// one write port; two units touching the same port of the same bank in the same cycles
// serialise. With contiguous banks (granule = capacity / banks) buffers packed from address 0
// all land in bank 0 once the SRAM is large, so the DMA filling the next tile and the array
// reading the current one wait for each other; placing each buffer at the start of granules
// (banks) of its own removes those conflicts. With fine interleaving (the default, 64 B) any
// buffer of banks x granule bytes or more covers every bank evenly wherever it starts, so
// placement cannot change which ports an access uses: only buffer sets that fit in
// banks x granule bytes in total are spread (each on banks of its own), the rest are packed.
// Reference: docs/compiler.md "SRAM placement".
#pragma once

#include <cstddef>
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

/// Place buffers of `sizes` bytes in an SRAM of `capacity_bytes` with `banks` banks
/// interleaved every `interleave_bytes` (0: contiguous banks of ceil(capacity / banks)
/// bytes; a value above that is treated as contiguous too). Let granule = the interleave.
/// Buffer i needs n_i = ceil(size_i / granule) granules; when sum n_i <= banks (and granule
/// is a multiple of align_bytes) buffer i starts at granule (n_0 + ... + n_{i-1}), i.e. in
/// banks of its own -- bank-exclusive, so concurrently live buffers never share a bank port.
/// Otherwise the packed layout (offsets from 0, each aligned to align_bytes), which is what
/// fits. capacity_bytes == 0 or banks <= 1: packed. Throws std::invalid_argument if
/// align_bytes == 0.
SramPlacement place_sram_buffers(const std::vector<std::uint64_t>& sizes, std::uint64_t capacity_bytes, int banks,
                                 std::uint64_t interleave_bytes, std::uint32_t align_bytes);

/// The same placement of `n` buffers without allocating: their offsets are written to
/// offset[0, n), packed_bytes is returned, and *bank_exclusive is set. For the tile searches,
/// which place the buffers of every tiling they consider.
std::uint64_t place_sram_buffers(const std::uint64_t* sizes, std::size_t n, std::uint64_t capacity_bytes, int banks,
                                 std::uint64_t interleave_bytes, std::uint32_t align_bytes, std::uint32_t* offset,
                                 bool* bank_exclusive);

}  // namespace npu::compiler
