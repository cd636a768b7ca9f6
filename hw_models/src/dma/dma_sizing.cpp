#include "npu/hw/dma/dma_sizing.hpp"

#include <algorithm>
#include <cmath>

#include "npu/hw/ddr/ddr_system.hpp"

namespace npu::hw {

DmaSizing dma_sizing(const HwConfig& hw) {
  DmaSizing s;
  s.width_derived = hw.dma.requests_per_cycle <= 0;
  s.requests_per_cycle = s.width_derived ? std::max(1, hw.ddr.channels) : hw.dma.requests_per_cycle;

  const DdrConfig& d = hw.ddr;
  s.channel_gbps = double(d.data_rate_mtps) * 1e6 * (d.bus_width_bits / 8.0) / 1e9;
  const double ddr_ns = double(unloaded_read_latency_ck(d, RowState::Conflict)) * d.tck_ns();
  const int burst = std::max(1, hw.dma.burst_bytes);
  const int port = std::max(1, hw.sram.bytes_per_cycle);
  const double core_ns = hw.npu.clock_mhz > 0 ? 1000.0 / hw.npu.clock_mhz : 0.0;
  const double sram_ns = double(hw.sram.latency_cycles + (burst + port - 1) / port + 1) * core_ns;
  s.loaded_latency_ns = ddr_ns + sram_ns;

  s.outstanding_derived = hw.dma.max_outstanding <= 0;
  if (s.outstanding_derived) {
    // 1e-9 guards products that are whole numbers up to floating-point rounding.
    const double n = std::ceil(s.channel_gbps * s.loaded_latency_ns / burst - 1e-9);
    s.outstanding_per_channel = int(std::clamp(n, 1.0, 4096.0));
  } else {
    s.outstanding_per_channel = hw.dma.max_outstanding;
  }
  return s;
}

}  // namespace npu::hw
