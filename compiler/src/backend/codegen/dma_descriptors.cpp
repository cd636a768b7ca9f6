#include "npu/compiler/backend/codegen/dma_descriptors.hpp"

#include <stdexcept>

namespace npu::compiler {

isa::DmaDesc dma_rows(std::uint64_t ddr_addr, std::uint32_t sram_addr, std::uint64_t row_elems, std::uint64_t rows,
                      std::uint64_t stride_bytes, int elem_bytes) {
  constexpr std::uint64_t kMaxExtent = 0xffffffffull;
  if (rows > 1 && stride_bytes == row_elems * std::uint64_t(elem_bytes) && row_elems * rows <= kMaxExtent) {
    row_elems *= rows;
    rows = 1;
  }
  if (row_elems > kMaxExtent || rows > kMaxExtent)
    throw std::logic_error("codegen: DMA extent of " + std::to_string(rows) + " rows of " + std::to_string(row_elems) +
                           " elements does not fit 32 bits");
  isa::DmaDesc d;
  d.ddr_addr = ddr_addr;
  d.sram_addr = sram_addr;
  d.elem_bytes = elem_bytes;
  d.extent = {std::uint32_t(row_elems), std::uint32_t(rows), 1};
  d.ddr_stride_bytes = {rows > 1 ? stride_bytes : 0, 0};
  return d;
}

}  // namespace npu::compiler
