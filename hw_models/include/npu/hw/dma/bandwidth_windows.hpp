// DDR bytes per fixed time window, for the VCD's windowed bandwidth signal.
#pragma once

#include <cstdint>
#include <vector>

namespace npu::hw {

/// Accumulates DDR bytes by the window their request completed in (windows of
/// `window_ps` picoseconds starting at 0). Plain C++; the DMA engines feed it, NpuTop samples
/// it once per window.
class BandwidthWindows {
 public:
  explicit BandwidthWindows(std::uint64_t window_ps) : window_ps_(window_ps) {}
  /// `bytes` moved by a request that completed at `done_ps`.
  void add(std::uint64_t done_ps, std::uint64_t bytes) {
    const std::size_t k = std::size_t(done_ps / window_ps_);
    if (k >= bytes_.size()) bytes_.resize(k + 1, 0);
    bytes_[k] += bytes;
  }
  /// Mean bandwidth of window k in GB/s: bytes / window_ps x 1000 (1 B/ps = 1000 GB/s).
  double gbps(std::size_t k) const { return k < bytes_.size() ? double(bytes_[k]) * 1000.0 / double(window_ps_) : 0.0; }
  std::size_t windows() const { return bytes_.size(); }
  std::uint64_t window_ps() const { return window_ps_; }

 private:
  std::uint64_t window_ps_;
  std::vector<std::uint64_t> bytes_;
};

}  // namespace npu::hw
