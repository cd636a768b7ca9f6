// Timing core of the on-chip SRAM scratchpad (no SystemC). Times are core clock cycles.
//
// Organisation: `banks` banks of capacity_bytes / banks bytes, interleaved every
// bank_interleave_bytes (sram_interleave.hpp: byte a is in bank (a / granule) mod banks;
// granule = bank size gives contiguous banks), each with one read port and one write port of
// bytes_per_cycle bytes per core cycle, and a fixed access latency. An access of B bytes
// leaving b_i of its bytes in bank i holds that bank's port (read or write) for
// ceil(b_i / bytes_per_cycle) cycles; the banks work in parallel. Timing is per access
// (O(min(banks, granules)) work), never per cycle.
//
// Conflict model (docs/timing.md, "SRAM"): each port keeps a calendar of the intervals it
// is reserved for. An access starts on each bank at the first gap of the needed length at
// or after its request cycle; two units hitting the same port of the same bank in the same
// window therefore serialise, and the wait is counted as SRAM-conflict cycles. Requests may
// arrive out of time order (the DMA runs ahead of simulation time), which the calendar
// handles exactly. With fine interleaving every large buffer spreads over all banks, so the
// full banks x bytes_per_cycle per port is shared by whatever runs at the same time; with
// contiguous banks, placement (a compiler decision expressed in addresses) decides which
// accesses can proceed in parallel.
#pragma once

#include <cstdint>
#include <vector>

#include "npu/hw/sram/sram_calendar.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace npu::hw {

struct SramAccessResult {
  bool ok = true;                     ///< false: [addr, addr+bytes) is outside the capacity
  std::uint64_t start_cycle = 0;      ///< first cycle the data moves (latest over banks)
  std::uint64_t done_cycle = 0;       ///< data transferred and latency paid
  std::uint64_t conflict_cycles = 0;  ///< waited for busy ports beyond the request cycle
};

struct SramStats {
  std::uint64_t read_bytes = 0;
  std::uint64_t write_bytes = 0;
  std::uint64_t accesses = 0;
  std::uint64_t conflict_cycles = 0;
};

class SramTiming {
 public:
  /// `ideal`: every access completes at its request cycle (no bandwidth, latency or
  /// conflicts), capacity still enforced. Throws std::invalid_argument when the config has
  /// no capacity, no banks or no bandwidth, when banks does not divide the capacity or when
  /// bank_interleave_bytes is 0 or does not divide the bank size.
  explicit SramTiming(const SramConfig& cfg, bool ideal = false);

  /// True when [addr, addr + bytes) lies inside the capacity.
  bool in_range(std::uint64_t addr, std::uint64_t bytes) const;

  /// Reserve the ports for one access requested at `request_cycle`. Out-of-range accesses
  /// return ok = false and change nothing. Zero-byte accesses complete at request_cycle.
  SramAccessResult access(std::uint64_t request_cycle, std::uint64_t addr, std::uint64_t bytes, bool write);

  /// Forget reservations that end at or before `cycle` (call as simulation time advances;
  /// requests are never earlier than the current simulation time).
  void retire_before(std::uint64_t cycle);

  const SramStats& stats() const { return stats_; }
  const SramConfig& config() const { return cfg_; }
  std::uint64_t bank_bytes() const { return bank_bytes_; }

 private:
  using Calendar = SramCalendar;  // per port: reserved half-open cycle intervals

  SramConfig cfg_;
  bool ideal_;
  std::uint64_t bank_bytes_;
  std::vector<Calendar> read_ports_, write_ports_;
  // Power-of-two interleave granule, bank count and port width (every preset): access() then
  // splits a short access with shifts and masks instead of 64-bit divisions.
  bool pow2_ = false;
  int granule_shift_ = 0, bpc_shift_ = 0;
  std::uint64_t bank_mask_ = 0;
  SramStats stats_;
};

}  // namespace npu::hw
