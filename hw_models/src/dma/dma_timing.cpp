#include "npu/hw/dma/dma_timing.hpp"

#include <algorithm>
#include <stdexcept>

namespace npu::hw {

BurstSplitter::BurstSplitter(const isa::DmaDesc& desc, std::uint32_t burst_bytes) : d_(desc), burst_(burst_bytes) {
  if (burst_bytes == 0) throw std::invalid_argument("BurstSplitter: burst_bytes must be positive");
  row_bytes_ = std::uint64_t(d_.extent[0]) * std::uint64_t(d_.elem_bytes);
  done_ = row_bytes_ == 0 || d_.extent[1] == 0 || d_.extent[2] == 0;
  sram_ = d_.sram_addr;
}

bool BurstSplitter::next(DmaBurst& out) {
  if (done_) return false;
  const std::uint64_t row_addr =
      d_.ddr_addr + std::uint64_t(plane_) * d_.ddr_stride_bytes[1] + std::uint64_t(row_) * d_.ddr_stride_bytes[0];
  const std::uint64_t addr = row_addr + offset_in_row_;
  const std::uint64_t to_boundary = burst_ - addr % burst_;
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

OutstandingWindow::OutstandingWindow(int max_outstanding, std::uint64_t issue_interval_ps)
    : ring_(std::size_t(std::max(1, max_outstanding)), 0), interval_(issue_interval_ps) {}

void OutstandingWindow::reset(std::uint64_t now_ps) {
  head_ = count_ = 0;
  last_issue_ = all_done_ = now_ps;
  any_ = false;
}

std::uint64_t OutstandingWindow::next_issue_ps() const {
  std::uint64_t t = any_ ? last_issue_ + interval_ : last_issue_;
  if (count_ == ring_.size()) t = std::max(t, ring_[head_]);  // oldest in flight must finish
  return t;
}

void OutstandingWindow::issued(std::uint64_t issue_ps, std::uint64_t done_ps) {
  // Completions may come back out of order; the window frees the slot of the request that
  // issued max_outstanding requests ago (in-order retirement, like a reorder buffer).
  if (count_ == ring_.size()) {
    ring_[head_] = done_ps;
    head_ = (head_ + 1) % ring_.size();
  } else {
    ring_[(head_ + count_) % ring_.size()] = done_ps;
    ++count_;
  }
  last_issue_ = issue_ps;
  any_ = true;
  all_done_ = std::max(all_done_, done_ps);
}

}  // namespace npu::hw
