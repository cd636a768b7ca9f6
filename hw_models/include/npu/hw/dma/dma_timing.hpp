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

/// The front end of one engine, in picoseconds: an issue cadence and one outstanding-request
/// window per DDR channel. At most `requests_per_cycle` requests issue per `cycle_ps` (one core
/// cycle; 0 = no cadence, the ideal memory), and a channel never has more than
/// `max_outstanding` requests in flight: its request i waits for its request i - max_outstanding
/// to complete (in-order retirement per channel, like a reorder buffer).
///
/// Issue and completion are recorded separately (issued(), then completed() in issue order per
/// channel) so that a caller may learn completion times later, e.g. after combining several
/// requests into one SRAM write; while a request is issued but not completed it is "pending".
class OutstandingWindow {
 public:
  /// Throws std::invalid_argument when max_outstanding, requests_per_cycle or channels < 1.
  OutstandingWindow(int max_outstanding, std::uint64_t cycle_ps, int requests_per_cycle = 1, int channels = 1);
  /// Start a new descriptor at `now_ps` (nothing in flight).
  void reset(std::uint64_t now_ps);
  /// Earliest time the next request, to `channel`, may issue. Requires !needs_completion(channel).
  std::uint64_t next_issue_ps(int channel = 0) const;
  /// True when the next request to `channel` must wait for a request that is still pending:
  /// the caller must record completions (completed()) first.
  bool needs_completion(int channel = 0) const;
  /// Record that a request to `channel` issued at `issue_ps` (it is pending until completed()).
  void issued(int channel, std::uint64_t issue_ps);
  /// Record the completion time of the oldest pending request of `channel`.
  void completed(int channel, std::uint64_t done_ps);
  /// issued(0, issue_ps) then completed(0, done_ps): one channel, completion known at issue.
  void issued(std::uint64_t issue_ps, std::uint64_t done_ps) {
    issued(0, issue_ps);
    completed(0, done_ps);
  }
  /// Completion time of the last request to finish (now_ps when none completed).
  std::uint64_t all_done_ps() const { return all_done_; }
  int max_outstanding() const { return depth_; }
  int requests_per_cycle() const { return width_; }

 private:
  struct Channel {
    std::vector<std::uint64_t> ring;  // done times of the newest `depth_` requests (pending at the tail)
    std::size_t head = 0, count = 0, pending = 0;
  };
  std::vector<Channel> ch_;
  int depth_, width_;
  std::uint64_t cycle_ps_, cycle_start_ = 0, last_issue_ = 0, all_done_ = 0;
  int issued_in_cycle_ = 0;
  bool any_ = false;
};

}  // namespace npu::hw
