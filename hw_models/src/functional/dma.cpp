#include "npu/hw/functional/ops.hpp"

#include <cmath>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

namespace npu::hw::functional {

namespace {

std::string fmt_float(float f) {
  std::ostringstream o;
  o << f;
  return o.str();
}

// Index r of a gather: the int32 at SRAM index_addr + 4r, or (index_float = 4) the fp32 there,
// which must hold an integer (an index computed at the fp32 activation width).
std::int64_t gather_index(const isa::DmaDesc& d, BackingStore& sram, std::uint32_t r) {
  if (d.index_float != 4) {
    std::int32_t idx = 0;
    sram.read(d.index_addr + 4ull * r, &idx, 4);
    return idx;
  }
  float f = 0.0f;
  sram.read(d.index_addr + 4ull * r, &f, 4);
  // |f| < 2^31 and integral: exactly an int64 (fp32 holds every integer up to 2^24 exactly).
  if (!(std::fabs(f) < 2147483648.0f) || std::trunc(f) != f)
    throw std::runtime_error("gather/scatter: index " + fmt_float(f) + " (row " + std::to_string(r) +
                             ") is not an integer; the layer that computed the indices gave a wrong value");
  return std::int64_t(f);
}

// The gather form (docs/isa.md "LOAD gather"): a LOAD reads SRAM row r from the table row
// idx[r]; a STORE (scatter) writes SRAM row r to the table row idx[r], rows in order (a repeated
// index: the last row wins). The indices are read when the instruction runs (they are data);
// an index outside [-rows, rows) stops the run naming it.
void gather(const isa::DmaDesc& d, bool load, BackingStore& ddr, BackingStore& sram) {
  const std::uint64_t row = std::uint64_t(d.extent[0]) * std::uint64_t(d.elem_bytes > 0 ? d.elem_bytes : 0);
  const std::int64_t rows = std::int64_t(d.gather_rows);
  for (std::uint32_t r = 0; r < d.extent[1]; ++r) {
    const std::int64_t idx = gather_index(d, sram, r);
    const std::int64_t k = idx < 0 ? idx + rows : idx;
    if (k < 0 || k >= rows)
      throw std::runtime_error(std::string(load ? "LOAD gather" : "STORE scatter") + ": index " +
                               std::to_string(idx) + " (row " + std::to_string(r) + ") is outside the table's " +
                               std::to_string(rows) + " rows [-rows, rows); fix the input's values");
    if (load) sram.copy_from(ddr, d.ddr_addr + std::uint64_t(k) * d.ddr_stride_bytes[0], d.sram_addr + r * row, row);
    else ddr.copy_from(sram, d.sram_addr + r * row, d.ddr_addr + std::uint64_t(k) * d.ddr_stride_bytes[0], row);
  }
}

}  // namespace

void dma(const isa::DmaDesc& d, bool load, BackingStore& ddr, BackingStore& sram) {
  if (d.gather) return gather(d, load, ddr, sram);
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
