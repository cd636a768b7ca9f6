// What the hardware records about each executed instruction, and the shared error slot
// through which a unit stops the simulation with a message a user can act on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace npu::hw {

/// The unit an instruction runs on (SYNC runs on none). `Host` is the host CPU: a HOST
/// instruction, during which the NPU's compute queue waits for the host partition.
enum class Unit { DmaLoad = 0, DmaStore = 1, MacArray = 2, ActUnit = 3, Host = 4, None = 5 };
inline constexpr int kNumUnits = 5;
const char* to_string(Unit u);  ///< "dma_load", "dma_store", "mac_array", "act_unit", "host", "none"

/// Per-instruction record. Times in picoseconds of simulated time; a SYNC or an instruction
/// that never ran has start_ps == end_ps.
struct ExecRecord {
  std::size_t index = 0;
  Unit unit = Unit::None;
  bool executed = false;
  std::uint64_t start_ps = 0;  ///< tokens acquired, work begins
  std::uint64_t end_ps = 0;    ///< work done, tokens pushed
  /// Bytes the DRAM moved: every DRAM burst (ddr.burst_bytes()) a request touches counts whole
  /// (memory.model fixed: the requests' own bytes, as its bus is timed).
  std::uint64_t ddr_read_bytes = 0, ddr_write_bytes = 0;
  std::uint64_t sram_read_bytes = 0, sram_write_bytes = 0;
  std::uint64_t macs = 0;
  std::uint64_t ddr_bursts = 0;
  std::uint64_t token_wait_ps = 0;          ///< blocked on tokens before start
  std::uint64_t ddr_latency_ps = 0;         ///< DMA: first burst latency beyond its peak transfer time
  std::uint64_t ddr_bandwidth_stall_ps = 0; ///< DMA: remaining time beyond bytes / peak bandwidth
  std::uint64_t sram_conflict_cycles = 0;   ///< longest wait of any of its SRAM accesses for a busy port
  /// HOST only: the host partition's figures from the instruction. host_cycles is what the
  /// controller waited (core cycles); the bytes are the host's analytic DDR traffic, never
  /// simulated and never part of ddr_read_bytes / ddr_write_bytes.
  std::uint64_t host_cycles = 0, host_macs = 0;
  std::uint64_t host_read_bytes = 0, host_write_bytes = 0;
  std::uint64_t host_nodes = 0;
};

/// First error raised during simulation (SRAM range, DDR address). Units set it and call
/// sc_stop(); the driver turns it into npu::ConfigError.
struct SimError {
  bool set = false;
  bool located = false;  ///< the controller has prefixed the instruction's location
  std::string message;
  void raise(std::string msg) {
    if (!set) {
      set = true;
      message = std::move(msg);
    }
  }
};

}  // namespace npu::hw
