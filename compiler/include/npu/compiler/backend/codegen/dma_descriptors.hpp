// DMA descriptors of the tiles the code generators move: the one builder the per-layer-kind
// generators (codegen/*.cpp) and the depth-first stack emitter (depth_first/stack_emitter.cpp)
// share. Reference: docs/isa.md (LOAD/STORE).
#pragma once

#include <cstdint>

#include "npu/isa/instruction.hpp"

namespace npu::compiler {

/// The LOAD/STORE descriptor of `rows` rows of `row_elems` contiguous elements of
/// `elem_bytes` bytes each: row r starts at DDR byte `ddr_addr + r * stride_bytes` and sits
/// packed in SRAM from byte `sram_addr` (rows x row_elems elements, no gaps).
/// Rows that follow each other in DDR (stride_bytes == row_elems x elem_bytes) are described
/// as one contiguous run (extent {row_elems x rows, 1, 1}) when that count fits in 32 bits,
/// so the DMA can use full bursts across row boundaries; otherwise extent
/// {row_elems, rows, 1} with ddr_stride_bytes {stride_bytes, 0} (0 for a single row).
/// Throws std::logic_error when row_elems or rows does not fit the 32-bit extent (a tile no
/// SRAM can hold: a code generator's bug).
isa::DmaDesc dma_rows(std::uint64_t ddr_addr, std::uint32_t sram_addr, std::uint64_t row_elems, std::uint64_t rows,
                      std::uint64_t stride_bytes, int elem_bytes);

}  // namespace npu::compiler
