#include "npu/isa/cost/ddr_stream.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace npu::isa {

bool below_column(const std::string& mapping, const char* f) {
  std::size_t co = std::string::npos, at = std::string::npos;
  for (std::size_t i = 0; i + 1 < mapping.size(); i += 2) {
    const std::string field = mapping.substr(i, 2);
    if (field == "co") co = i;
    if (field == f) at = i;
  }
  return co != std::string::npos && at != std::string::npos && at > co;
}

double sequential_stream_gbps(const HwConfig& hw) {
  if (hw.memory.model == MemoryModel::Fixed) return hw.memory.bandwidth_gbps;  // one bus, no banks
  const DdrConfig& d = hw.ddr;
  const double peak = d.peak_gbps();
  if (peak <= 0 || d.data_rate_mtps <= 0) return peak;
  const double burst = double(std::max(hw.dma.burst_bytes, 1));
  const double channel_burst = double(std::max(d.burst_bytes(), 1));
  const bool bg_interleaved = d.bank_groups <= 1 || below_column(d.address_mapping, "bg");
  const int spacing_ck = std::max(bg_interleaved ? d.timing.t_ccd_s : d.timing.t_ccd_l, d.burst_length / 2);
  const double channel_bursts = std::max(1.0, std::ceil(burst / channel_burst));
  const double per_channel = burst / (channel_bursts * double(std::max(spacing_ck, 1)) * d.tck_ns());
  double channels = double(std::max(d.channels, 1));
  if (d.channels > 1 && !below_column(d.address_mapping, "ch") && hw.dma.max_outstanding > 0) {
    const double page_bursts = double(d.columns) * (d.bus_width_bits / 8.0) / burst;
    const double window = double(hw.dma.max_outstanding);
    if (window < page_bursts) channels = std::min(channels, page_bursts / (page_bursts - window));
  }
  double stream = std::min(per_channel * channels, peak);
  if (hw.npu.clock_mhz > 0) {
    const int width = hw.dma.requests_per_cycle > 0 ? hw.dma.requests_per_cycle : std::max(d.channels, 1);
    stream = std::min(stream, double(width) * burst / hw.core_period_ns());
  }
  return stream;
}

std::string sequential_stream_reason(const HwConfig& hw) {
  if (hw.memory.model == MemoryModel::Fixed) return "the fixed memory's bandwidth (memory.model fixed)";
  const DdrConfig& d = hw.ddr;
  const double stream = sequential_stream_gbps(hw);
  if (stream >= d.peak_gbps() * (1 - 1e-9)) return "the peak";
  const bool bg_interleaved = d.bank_groups <= 1 || below_column(d.address_mapping, "bg");
  std::string why;
  if (!bg_interleaved && d.timing.t_ccd_l > std::max(d.timing.t_ccd_s, d.burst_length / 2))
    why = "tCCD_L: consecutive bursts stay in one bank group (bg above co in " + d.address_mapping + ")";
  if (d.channels > 1 && !below_column(d.address_mapping, "ch"))
    why += std::string(why.empty() ? "" : "; ") + "one channel per row page (ch above co in " + d.address_mapping + ")";
  if (hw.npu.clock_mhz > 0) {
    const int width = hw.dma.requests_per_cycle > 0 ? hw.dma.requests_per_cycle : std::max(d.channels, 1);
    if (double(width) * std::max(hw.dma.burst_bytes, 1) / hw.core_period_ns() <= stream * (1 + 1e-9))
      why += std::string(why.empty() ? "" : "; ") + "the DMA issue width";
  }
  return why.empty() ? "column command spacing" : why;
}

}  // namespace npu::isa
