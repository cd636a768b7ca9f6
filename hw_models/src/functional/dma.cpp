#include "npu/hw/functional/ops.hpp"

namespace npu::hw::functional {

void dma(const isa::DmaDesc& d, bool load, BackingStore& ddr, BackingStore& sram) {
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
