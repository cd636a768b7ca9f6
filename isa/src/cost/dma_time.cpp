#include "npu/isa/cost/dma_time.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "npu/isa/cost/ddr_stream.hpp"

namespace npu::isa {

namespace {

// The SRAM side of a request (its write into SRAM and the core cycle it issues in), ns:
// (sram.latency_cycles + ceil(burst / sram.bytes_per_cycle) + 1) x core period
// (npu::hw::dma_sizing's loaded latency uses the same term).
double sram_side_ns(const HwConfig& hw) {
  if (hw.npu.clock_mhz <= 0) return 0;
  const int burst = std::max(1, hw.dma.burst_bytes), port = std::max(1, hw.sram.bytes_per_cycle);
  return double(hw.sram.latency_cycles + (burst + port - 1) / port + 1) * hw.core_period_ns();
}

// Requests in flight per engine and channel: dma.max_outstanding, or the Little's-law size
// npu::hw::dma_sizing gives when it is absent (channel peak x row-conflict latency / burst;
// that formula takes BL/2 as the data term), clamped to [1, 4096].
double window_requests(const HwConfig& hw) {
  if (hw.dma.max_outstanding > 0) return double(hw.dma.max_outstanding);
  const DdrConfig& d = hw.ddr;
  const DdrTimingCk& t = d.timing;
  const double latency_ns = double(t.t_rp + t.t_rcd + t.cl + d.burst_length / 2 + 1) * d.tck_ns() + sram_side_ns(hw);
  const double channel_gbps = double(d.data_rate_mtps) * 1e6 * (d.bus_width_bits / 8.0) / 1e9;
  const double n = std::ceil(channel_gbps * latency_ns / double(std::max(1, hw.dma.burst_bytes)) - 1e-9);
  return std::clamp(n, 1.0, 4096.0);
}

DmaStreamModel fixed_memory_model(const HwConfig& hw) {
  DmaStreamModel m;
  m.first_burst_ns = hw.memory.latency_ns + sram_side_ns(hw);
  double rate = hw.memory.bandwidth_gbps;
  if (hw.memory.latency_ns > 0 && hw.dma.max_outstanding > 0)  // the window over the fixed latency
    rate = std::min(rate, double(hw.dma.max_outstanding) * std::max(1, hw.dma.burst_bytes) / m.first_burst_ns);
  m.first_page_gbps = m.sustained_gbps = rate;
  return m;
}

}  // namespace

DmaStreamModel dma_stream_model(const HwConfig& hw) {
  if (hw.memory.model == MemoryModel::Fixed) return fixed_memory_model(hw);
  DmaStreamModel m;
  const DdrConfig& d = hw.ddr;
  if (d.data_rate_mtps <= 0 || d.peak_gbps() <= 0) return m;
  const DdrTimingCk& t = d.timing;
  const double burst = double(std::max(hw.dma.burst_bytes, 1));
  const double data_ck = std::ceil(burst / double(std::max(d.burst_bytes(), 1))) * (d.burst_length / 2);
  const double sram_ns = sram_side_ns(hw);
  m.first_burst_ns = (double(t.t_rcd + t.cl + 1) + data_ck) * d.tck_ns() + sram_ns;
  const double conflict_ns = (double(t.t_rp + t.t_rcd + t.cl + 1) + data_ck) * d.tck_ns() + sram_ns;
  const double window = window_requests(hw);
  const double stream = sequential_stream_gbps(hw);
  const bool interleaved = d.channels <= 1 || below_column(d.address_mapping, "ch");
  m.first_page_gbps = m.sustained_gbps = stream;
  if (!interleaved) {
    // One channel's page at a time: that channel's column-command rate, then page switches.
    const bool bg_interleaved = d.bank_groups <= 1 || below_column(d.address_mapping, "bg");
    const int spacing_ck = std::max(bg_interleaved ? t.t_ccd_s : t.t_ccd_l, d.burst_length / 2);
    const double request_ns = (data_ck / (d.burst_length / 2.0)) * double(std::max(spacing_ck, 1)) * d.tck_ns();
    const double page_bytes = double(d.columns) * (d.bus_width_bits / 8.0);
    const double n = page_bytes / burst;
    // The next channel's page waits for a closed bank's DDR latency; the SRAM side of its
    // requests overlaps the previous page's (without it the estimate fits the simulator within
    // 5 % from 64 KiB to 1 MiB on mobile and tpu; with it, 7 %).
    const double switch_ns = m.first_burst_ns - sram_ns;
    const double period_ns = std::max(switch_ns + std::max(n - window, 0.0) * request_ns,
                                      n * request_ns / double(d.channels));
    m.first_page_gbps = std::min(stream, burst / request_ns);
    m.first_page_bytes = page_bytes;
    m.sustained_gbps = std::min(stream, page_bytes / period_ns);
  }
  // Little's law per engine: at most `window` requests in flight per channel in use, each for
  // a row-conflict latency.
  const double little = (interleaved ? double(std::max(d.channels, 1)) : 1.0) * window * burst / conflict_ns;
  m.first_page_gbps = std::min(m.first_page_gbps, little);
  m.sustained_gbps = std::min(m.sustained_gbps, little);
  if (t.t_refi > 0) m.refresh_factor = 1.0 / std::max(1.0 - double(t.t_rp + t.t_rfc) / double(t.t_refi), 0.05);
  return m;
}

double dma_descriptor_ns(const DmaStreamModel& m, std::uint64_t bytes) {
  if (bytes == 0 || !m.valid()) return 0;
  const double b = double(bytes);
  const double first = std::min(b, m.first_page_bytes);
  return m.first_burst_ns + m.refresh_factor * (first / m.first_page_gbps + (b - first) / m.sustained_gbps);
}

double dma_transfers_ns(const DmaStreamModel& m, std::uint64_t bytes, std::uint64_t count) {
  if (bytes == 0) return 0;
  const std::uint64_t n = std::max<std::uint64_t>(count, 1);
  return double(n) * dma_descriptor_ns(m, (bytes + n - 1) / n);
}

double dma_load_store_ns(const DmaStreamModel& m, std::uint64_t load_bytes, std::uint64_t store_bytes) {
  const double load = dma_descriptor_ns(m, load_bytes), store = dma_descriptor_ns(m, store_bytes);
  if (load == 0 || store == 0) return load + store;
  return load + store - m.first_burst_ns;
}

}  // namespace npu::isa
