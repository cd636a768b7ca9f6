// Timing core of a DMA engine (no SystemC): how a LOAD/STORE descriptor becomes DDR
// bursts, and when each burst may issue with at most `max_outstanding` in flight.
#pragma once

#include <cstdint>
#include <vector>

#include "npu/isa/instruction.hpp"

namespace npu::hw {

/// One DDR request of a descriptor: `bytes` contiguous bytes at ddr_addr <-> sram_addr.
struct DmaBurst {
  std::uint64_t ddr_addr = 0;
  std::uint64_t sram_addr = 0;
  std::uint32_t bytes = 0;
};

/// Walks a descriptor's DDR footprint in order: planes (extent[2], stride ddr_stride_bytes[1])
/// of rows (extent[1], stride ddr_stride_bytes[0]) of extent[0]*elem_bytes contiguous bytes.
/// Each row is cut at multiples of `burst_bytes` in the DDR address space, so no request
/// crosses a burst boundary (a row that starts mid-burst gets a short first request).
/// The SRAM side is packed (isa::DmaDesc).
class BurstSplitter {
 public:
  BurstSplitter(const isa::DmaDesc& desc, std::uint32_t burst_bytes);
  /// Next burst; false when the descriptor is exhausted.
  bool next(DmaBurst& out);
  /// Number of bursts the descriptor produces (computed without walking every burst twice).
  static std::uint64_t count(const isa::DmaDesc& desc, std::uint32_t burst_bytes);

 private:
  isa::DmaDesc d_;
  std::uint64_t burst_, row_bytes_;
  std::uint32_t plane_ = 0, row_ = 0;
  std::uint64_t offset_in_row_ = 0, sram_ = 0;
  bool done_ = false;
};

/// The outstanding-request window of one engine, in picoseconds. The front end issues one
/// request per `issue_interval_ps` (one core cycle) and never has more than
/// `max_outstanding` requests in flight: request i waits for request i - max_outstanding.
class OutstandingWindow {
 public:
  OutstandingWindow(int max_outstanding, std::uint64_t issue_interval_ps);
  /// Start a new descriptor at `now_ps` (nothing in flight).
  void reset(std::uint64_t now_ps);
  /// Earliest time the next request may issue.
  std::uint64_t next_issue_ps() const;
  /// Record that a request issued at `issue_ps` completes at `done_ps`.
  void issued(std::uint64_t issue_ps, std::uint64_t done_ps);
  /// Completion time of the last request to finish (now_ps when none issued).
  std::uint64_t all_done_ps() const { return all_done_; }

 private:
  std::vector<std::uint64_t> ring_;
  std::size_t head_ = 0, count_ = 0;
  std::uint64_t interval_, last_issue_ = 0, all_done_ = 0;
  bool any_ = false;
};

}  // namespace npu::hw
