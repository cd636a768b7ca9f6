// Timing core of a DMA engine (no SystemC): how a LOAD/STORE descriptor becomes DDR
// bursts, and when each burst may issue with at most `max_outstanding` in flight.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
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
  bool burst_pow2_ = false;  ///< a mask instead of a division per burst
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
    // pending apart from count: side by side, GCC updated the pair with one 16-byte load, which
    // could not take its value from completed()'s 8-byte store of pending (a store-forwarding
    // stall that was half of Dma::issue_burst's samples on a long stream, docs/performance.md).
    std::size_t count = 0, head = 0, pending = 0;
  };
  /// i mod size for i < 2 size (head < size and count <= size): a compare instead of a division,
  /// which was a third of issued()'s time in a profile of a long stream (docs/performance.md).
  static std::size_t wrap(std::size_t i, std::size_t size) { return i >= size ? i - size : i; }
  std::vector<Channel> ch_;
  int depth_, width_;
  std::uint64_t cycle_ps_, cycle_start_ = 0, last_issue_ = 0, all_done_ = 0;
  int issued_in_cycle_ = 0;
  bool any_ = false;
};

/// Bytes the DRAM moves to serve one request of `bytes` bytes at `ddr_addr`: DRAM moves whole
/// bursts of `dram_burst_bytes` (bus width x burst length / 8), so a request is charged every
/// DRAM burst it touches (docs/timing.md, "DMA"). `dram_burst_bytes` 0 (no DRAM geometry)
/// charges `bytes`. Requires bytes >= 1.
inline std::uint64_t dram_bytes_touched(std::uint64_t ddr_addr, std::uint32_t bytes, std::uint64_t dram_burst_bytes) {
  if (dram_burst_bytes == 0) return bytes;
  // Per burst of every DMA: shifts for a power-of-two DRAM burst (every preset), else divisions.
  if ((dram_burst_bytes & (dram_burst_bytes - 1)) == 0) {
    const int shift = __builtin_ctzll(dram_burst_bytes);
    return (((ddr_addr + bytes - 1) >> shift) - (ddr_addr >> shift) + 1) << shift;
  }
  const std::uint64_t first = ddr_addr / dram_burst_bytes, last = (ddr_addr + bytes - 1) / dram_burst_bytes;
  return (last - first + 1) * dram_burst_bytes;
}

/// A half-open SRAM byte range [lo, hi).
struct SramRange {
  std::uint64_t lo = 0, hi = 0;
  bool contains(std::uint64_t addr, std::uint64_t bytes) const { return addr >= lo && addr + bytes <= hi; }
};

/// The SRAM side of one descriptor (docs/timing.md, "DMA"): the engine moves SRAM data in lines
/// of `line_bytes` (sram.bytes_per_cycle, one port cycle). Only when a line is wider than a DMA
/// burst (`burst_bytes`) are bursts combined: a LOAD writes the bursts that fill a line as one
/// SRAM write, a STORE reads a line once for the bursts it feeds. `sram_end` is one past the
/// descriptor's last SRAM byte. Requires line_bytes, burst_bytes >= 1.
class SramLines {
 public:
  SramLines(std::uint64_t line_bytes, std::uint32_t burst_bytes, std::uint64_t sram_end)
      : line_bytes_(line_bytes), end_(sram_end), combine_(line_bytes > burst_bytes) {}
  /// True when bursts are combined into lines (line_bytes > burst_bytes).
  bool combine() const { return combine_; }
  /// STORE: the range read for burst `b` when no earlier read covers it: the line of
  /// max(line_bytes, b.bytes) bytes from b.sram_addr, clipped at sram_end, when combining;
  /// the burst's own bytes otherwise.
  SramRange store_read(const DmaBurst& b) const;
  /// LOAD: whether `pending_bytes` of arrived bursts make a line to write now (always when
  /// not combining).
  bool load_line_full(std::uint64_t pending_bytes) const { return !combine_ || pending_bytes >= line_bytes_; }

 private:
  std::uint64_t line_bytes_, end_;
  bool combine_;
};

/// LOAD bursts that arrived from DDR and wait, in issue order, to be written to SRAM as one
/// line (SramLines). Times in picoseconds.
class LoadLineBuffer {
 public:
  struct Arrival {
    int channel;                 ///< DDR channel, for OutstandingWindow::completed
    std::uint32_t bytes;         ///< burst bytes
    std::uint64_t dram_bytes;    ///< dram_bytes_touched() of the burst
  };
  /// Add burst `b` (to `channel`) whose DDR data arrived at `done_ps`.
  void add(int channel, const DmaBurst& b, std::uint64_t dram_bytes, std::uint64_t done_ps);
  bool empty() const { return arrivals_.empty(); }
  /// The line to write: from the first burst's SRAM address, the sum of the burst bytes,
  /// ready when the last burst has arrived.
  std::uint64_t sram_addr() const { return sram_addr_; }
  std::uint64_t bytes() const { return bytes_; }
  std::uint64_t ready_ps() const { return ready_ps_; }
  const std::vector<Arrival>& arrivals() const { return arrivals_; }
  /// Forget the buffered bursts (after the line was written).
  void clear();

 private:
  std::vector<Arrival> arrivals_;
  std::uint64_t sram_addr_ = 0, bytes_ = 0, ready_ps_ = 0;
};

/// Where a descriptor's DDR wait went (docs/timing.md, "DMA"), in picoseconds.
struct DmaStalls {
  std::uint64_t latency_ps = 0;          ///< first burst's wait beyond its own transfer at peak
  std::uint64_t bandwidth_stall_ps = 0;  ///< rest of the duration beyond all bytes at peak + latency
};

/// Splits a descriptor's duration into latency and bandwidth stall: at peak bandwidth the
/// descriptor would take bytes_total / peak; the first completed burst's wait beyond its own
/// peak transfer time is latency, what the whole descriptor takes beyond (bytes_total at peak +
/// latency) is bandwidth stall. Record completions in completion-record order; the first counts.
class DmaStallSplit {
 public:
  explicit DmaStallSplit(std::uint64_t start_ps) : start_ps_(start_ps) {}
  /// Record a completed burst of `bytes` at `done_ps`; only the first call is kept (inline: once a burst).
  void completed(std::uint64_t done_ps, std::uint64_t bytes) {
    if (seen_) return;
    seen_ = true;
    first_done_ps_ = done_ps;
    first_bytes_ = bytes;
  }
  /// The split for a descriptor of `bytes_total` bytes that ended at `end_ps`, with DDR peak
  /// bandwidth `peak_gbps` (GB/s = bytes/ns). Requires peak_gbps > 0 and a recorded completion.
  DmaStalls split(std::uint64_t end_ps, std::uint64_t bytes_total, double peak_gbps) const;

 private:
  std::uint64_t start_ps_, first_done_ps_ = 0, first_bytes_ = 0;
  bool seen_ = false;
};

// The per-burst members, inline: the DMA calls them for every burst (docs/performance.md).

inline bool OutstandingWindow::needs_completion(int channel) const {
  const Channel& c = ch_[std::size_t(channel)];
  // The request that must finish first is the oldest of a full ring; pending ones are the newest.
  return c.count == c.ring.size() && c.pending == c.count;
}

inline std::uint64_t OutstandingWindow::next_issue_ps(int channel) const {
  // Cadence: up to width_ requests in the cycle that began at cycle_start_, then the next cycle.
  std::uint64_t t = last_issue_;
  if (any_ && issued_in_cycle_ >= width_) t = std::max(t, cycle_start_ + cycle_ps_);
  const Channel& c = ch_[std::size_t(channel)];
  if (c.count == c.ring.size()) t = std::max(t, c.ring[c.head]);  // oldest in flight must finish
  return t;
}

inline void OutstandingWindow::issued(int channel, std::uint64_t issue_ps) {
  Channel& c = ch_[std::size_t(channel)];
  const std::size_t size = c.ring.size();
  if (c.count == size && c.pending == c.count)
    throw std::logic_error("OutstandingWindow::issued: the window waits for a pending request (needs_completion)");
  if (c.count == size) {  // the oldest (completed) request leaves the window
    c.head = wrap(c.head + 1, size);
    --c.count;
  }
  c.ring[wrap(c.head + c.count, size)] = 0;
  ++c.count;
  ++c.pending;
  if (!any_ || issued_in_cycle_ >= width_ || issue_ps >= cycle_start_ + cycle_ps_) {
    cycle_start_ = issue_ps;
    issued_in_cycle_ = 1;
  } else {
    ++issued_in_cycle_;
  }
  last_issue_ = issue_ps;
  any_ = true;
}

inline void OutstandingWindow::completed(int channel, std::uint64_t done_ps) {
  Channel& c = ch_[std::size_t(channel)];
  if (c.pending == 0) throw std::logic_error("OutstandingWindow::completed: no pending request on this channel");
  c.ring[wrap(c.head + c.count - c.pending, c.ring.size())] = done_ps;
  --c.pending;
  all_done_ = std::max(all_done_, done_ps);
}

inline void LoadLineBuffer::add(int channel, const DmaBurst& b, std::uint64_t dram_bytes, std::uint64_t done_ps) {
  if (arrivals_.empty()) sram_addr_ = b.sram_addr;
  Arrival& a = arrivals_.emplace_back();  // filled in place: a temporary copied as 16 bytes stalled as above
  a.channel = channel;
  a.bytes = b.bytes;
  a.dram_bytes = dram_bytes;
  bytes_ += b.bytes;
  ready_ps_ = std::max(ready_ps_, done_ps);
}

}  // namespace npu::hw
