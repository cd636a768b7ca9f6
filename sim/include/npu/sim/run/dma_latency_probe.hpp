// The loaded DMA latency the model actually gives: one sequential LOAD simulated on a config,
// for `npu config check` (beside the unloaded latency the DMA window is sized with by
// Little's law). docs/config.md "Derived figures".
#pragma once

#include <cstdint>

#include "npu/hw_config/hw_config.hpp"

namespace npu::sim {

/// What one sequential LOAD measured.
struct DmaLatencyProbe {
  bool present = false;            ///< false: this build has no DDR model statistics
  std::uint64_t bytes = 0;         ///< the LOAD's size: min(256 KiB, sram.capacity)
  double mean_read_latency_ns = 0; ///< DDR model: request issue to data, mean over the LOAD's requests
  double p99_read_latency_ns = 0;
  double achieved_gbps = 0;        ///< bytes / simulated time of the LOAD
};

/// Simulates one LOAD of min(256 KiB, sram.capacity) consecutive DDR bytes on `hw` (the DMA
/// keeps its window of requests in flight, so each request waits behind the ones before it:
/// the loaded latency) and returns the DDR model's read latencies. Runs run_program, so it may
/// be called once per process (SystemC elaborates once); throws what run_program throws.
DmaLatencyProbe probe_loaded_dma_latency(const HwConfig& hw);

}  // namespace npu::sim
