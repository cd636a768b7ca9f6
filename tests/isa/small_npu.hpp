// The small int8 NPU the isa check tests run against, built in code (no YAML).
#pragma once

#include "npu/hw_config/hw_config.hpp"

namespace npu::isa::test {

/// A small int8 NPU: 64 KiB SRAM; DDR of 1 channel x 1 rank x 1 bank x 256 rows x 256 columns
/// x 8 bytes (64-bit bus) = 524288 bytes = 0x80000.
inline HwConfig small_npu() {
  HwConfig hw;
  hw.source = "small-npu";
  hw.npu = {"small", 1000};
  hw.mac_array.rows = hw.mac_array.cols = 16;
  hw.mac_array.dtype = DType::Int8;
  hw.sram.capacity_bytes = 64 * 1024;
  hw.ddr.channels = hw.ddr.ranks = hw.ddr.bank_groups = hw.ddr.banks_per_group = 1;
  hw.ddr.rows = 256;
  hw.ddr.columns = 256;
  hw.ddr.bus_width_bits = 64;
  return hw;
}

}  // namespace npu::isa::test
