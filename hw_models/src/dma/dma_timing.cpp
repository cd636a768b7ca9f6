#include "npu/hw/dma/dma_timing.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace npu::hw {

BurstSplitter::BurstSplitter(const isa::DmaDesc& desc, std::uint32_t burst_bytes) : d_(desc), burst_(burst_bytes) {
  if (burst_bytes == 0) throw std::invalid_argument("BurstSplitter: burst_bytes must be positive");
  burst_pow2_ = (burst_bytes & (burst_bytes - 1)) == 0;
  row_bytes_ = std::uint64_t(d_.extent[0]) * std::uint64_t(d_.elem_bytes);
  done_ = row_bytes_ == 0 || d_.extent[1] == 0 || d_.extent[2] == 0;
  sram_ = d_.sram_addr;
}

bool BurstSplitter::next(DmaBurst& out) {
  if (done_) return false;
  const std::uint64_t row_addr =
      d_.ddr_addr + std::uint64_t(plane_) * d_.ddr_stride_bytes[1] + std::uint64_t(row_) * d_.ddr_stride_bytes[0];
  const std::uint64_t addr = row_addr + offset_in_row_;
  const std::uint64_t to_boundary = burst_ - (burst_pow2_ ? addr & (burst_ - 1) : addr % burst_);
  const std::uint64_t len = std::min(to_boundary, row_bytes_ - offset_in_row_);
  out.ddr_addr = addr;
  out.sram_addr = sram_;
  out.bytes = std::uint32_t(len);
  sram_ += len;
  offset_in_row_ += len;
  if (offset_in_row_ == row_bytes_) {
    offset_in_row_ = 0;
    if (++row_ == d_.extent[1]) {
      row_ = 0;
      if (++plane_ == d_.extent[2]) done_ = true;
    }
  }
  return true;
}

std::uint64_t BurstSplitter::count(const isa::DmaDesc& desc, std::uint32_t burst_bytes) {
  // Rows may start at different offsets within a burst, so count row by row (cheap: one
  // division per row, not per burst).
  const std::uint64_t row_bytes = std::uint64_t(desc.extent[0]) * std::uint64_t(desc.elem_bytes);
  if (row_bytes == 0 || burst_bytes == 0) return 0;
  std::uint64_t n = 0;
  for (std::uint32_t p = 0; p < desc.extent[2]; ++p) {
    for (std::uint32_t r = 0; r < desc.extent[1]; ++r) {
      const std::uint64_t a = desc.ddr_addr + std::uint64_t(p) * desc.ddr_stride_bytes[1] +
                              std::uint64_t(r) * desc.ddr_stride_bytes[0];
      n += (a + row_bytes - 1) / burst_bytes - a / burst_bytes + 1;
    }
  }
  return n;
}

OutstandingWindow::OutstandingWindow(int max_outstanding, std::uint64_t cycle_ps, int requests_per_cycle,
                                     int channels)
    : depth_(max_outstanding), width_(requests_per_cycle), cycle_ps_(cycle_ps) {
  if (max_outstanding < 1 || requests_per_cycle < 1 || channels < 1)
    throw std::invalid_argument("OutstandingWindow: max_outstanding, requests_per_cycle and channels must be >= 1");
  ch_.resize(std::size_t(channels));
  for (Channel& c : ch_) c.ring.assign(std::size_t(max_outstanding), 0);
}

void OutstandingWindow::reset(std::uint64_t now_ps) {
  for (Channel& c : ch_) c.head = c.count = c.pending = 0;
  cycle_start_ = last_issue_ = all_done_ = now_ps;
  issued_in_cycle_ = 0;
  any_ = false;
}


SramRange SramLines::store_read(const DmaBurst& b) const {
  if (!combine_) return {b.sram_addr, b.sram_addr + b.bytes};
  return {b.sram_addr, std::min(end_, b.sram_addr + std::max<std::uint64_t>(line_bytes_, b.bytes))};
}

void LoadLineBuffer::clear() {
  arrivals_.clear();
  bytes_ = 0;
  ready_ps_ = 0;
}

DmaStalls DmaStallSplit::split(std::uint64_t end_ps, std::uint64_t bytes_total, double peak_gbps) const {
  const double peak_bytes_per_ps = peak_gbps / 1000.0;
  const auto at_peak = [&](std::uint64_t bytes) { return std::uint64_t(std::llround(double(bytes) / peak_bytes_per_ps)); };
  DmaStalls s;
  const std::uint64_t first_wait = first_done_ps_ - start_ps_;
  s.latency_ps = first_wait > at_peak(first_bytes_) ? first_wait - at_peak(first_bytes_) : 0;
  const std::uint64_t dur_ps = end_ps - start_ps_, ideal_ps = at_peak(bytes_total) + s.latency_ps;
  s.bandwidth_stall_ps = dur_ps > ideal_ps ? dur_ps - ideal_ps : 0;
  return s;
}

}  // namespace npu::hw
