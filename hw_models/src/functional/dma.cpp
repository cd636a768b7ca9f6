#include "npu/hw/functional/ops.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace npu::hw::functional {

namespace {

// The gather form (docs/isa.md "LOAD gather"): row r from the table row idx[r], the int32 at
// SRAM index_addr + 4r, read when the LOAD runs (the indices are data).
void gather(const isa::DmaDesc& d, BackingStore& ddr, BackingStore& sram) {
  const std::uint64_t row = std::uint64_t(d.extent[0]) * std::uint64_t(d.elem_bytes > 0 ? d.elem_bytes : 0);
  const std::int64_t rows = std::int64_t(d.gather_rows);
  for (std::uint32_t r = 0; r < d.extent[1]; ++r) {
    std::int32_t idx = 0;
    sram.read(d.index_addr + 4ull * r, &idx, 4);
    const std::int64_t k = idx < 0 ? std::int64_t(idx) + rows : std::int64_t(idx);
    if (k < 0 || k >= rows)
      throw std::runtime_error("LOAD gather: index " + std::to_string(idx) + " (row " + std::to_string(r) +
                               ") is outside the table's " + std::to_string(rows) +
                               " rows [-rows, rows); fix the input's values");
    sram.copy_from(ddr, d.ddr_addr + std::uint64_t(k) * d.ddr_stride_bytes[0], d.sram_addr + r * row, row);
  }
}

}  // namespace

void dma(const isa::DmaDesc& d, bool load, BackingStore& ddr, BackingStore& sram) {
  if (d.gather && load) return gather(d, ddr, sram);
  const std::uint64_t row = std::uint64_t(d.extent[0]) * std::uint64_t(d.elem_bytes > 0 ? d.elem_bytes : 0);
  std::uint64_t s = d.sram_addr;
  for (std::uint32_t p = 0; p < d.extent[2]; ++p)
    for (std::uint32_t r = 0; r < d.extent[1]; ++r) {
      const std::uint64_t a = d.ddr_addr + std::uint64_t(p) * d.ddr_stride_bytes[1] + std::uint64_t(r) * d.ddr_stride_bytes[0];
      if (load) sram.copy_from(ddr, a, s, row);
      else ddr.copy_from(sram, s, a, row);
      s += row;
    }
}

}  // namespace npu::hw::functional
