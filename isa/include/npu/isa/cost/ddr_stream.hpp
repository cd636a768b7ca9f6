// The rate at which one DMA descriptor over consecutive DDR addresses can stream (a weight
// LOAD): a bound from the address mapping and the DDR timing, for the compiler's estimates.
#pragma once

#include <string>

#include "npu/hw_config/hw_config.hpp"

namespace npu::isa {

/// Sustained bandwidth bound of one sequential DMA stream (bytes/ns == GB/s): one engine
/// issuing `dma.burst_bytes` requests in address order with up to `dma.max_outstanding` in
/// flight per DDR channel, as the load engine runs a weight LOAD. Where the address mapping
/// puts the column bits lowest, consecutive bursts hit one bank and, on a DDR with bank groups,
/// one bank group, so column commands are tCCD_L apart instead of tCCD_S (JESD79-4: tCCD_L
/// between READs to the same bank group, tCCD_S to different ones; the reason DDR4 controllers
/// interleave bank groups in low address bits); and the stream stays in one channel for
/// a whole row page before it moves on. docs/timing.md "Sequential streams":
///
///   spacing  = tCCD_S if bank_groups == 1 or `bg` is below `co` in the mapping, else tCCD_L
///   per_ch   = burst_bytes / (ceil(burst_bytes / (bus_bytes x BL)) x max(spacing, BL/2) x tCK)
///   channels = ddr.channels if `ch` is below `co`; otherwise (a row page per channel in turn)
///              min(ddr.channels, n / (n - W)) with n = row page / burst_bytes bursts per page
///              and W = dma.max_outstanding (the window lets the next page's channel start
///              while the last W requests of this page are in flight; W absent: ddr.channels)
///   stream   = min(per_ch x channels, peak_gbps, issue width x burst_bytes / core period)
///
/// Edge preset (DDR4-3200, rochrababgco): 64 B / (8 x 0.625 ns) = 12.8 GB/s (the simulator:
/// 12.37 GB/s on a 256 KiB LOAD, 12.16 GB/s on 1 MiB). An upper bound: refresh, row switches
/// and the first request's latency are left out. Throws nothing; `hw` must be a validated
/// config.
double sequential_stream_gbps(const HwConfig& hw);

/// What bounds sequential_stream_gbps(hw), in words for reports: e.g. "tCCD_L: consecutive
/// bursts stay in one bank group (bg above co in rochrababgco)", or "the peak" when the stream
/// reaches it. Throws nothing.
std::string sequential_stream_reason(const HwConfig& hw);

/// Whether the two-letter field `f` ("bg", "ch", ...) comes after `co` in the address mapping
/// `mapping` (MSB -> LSB), i.e. takes lower address bits than the column: consecutive bursts
/// then interleave over it. False when either field is absent. Throws nothing.
bool below_column(const std::string& mapping, const char* f);

}  // namespace npu::isa
