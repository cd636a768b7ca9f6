// The compiler's estimate of how long a LOAD or STORE takes on the simulated DMA + DDR: the
// achievable stream rate per engine, not the DDR peak (docs/timing.md "DMA time estimate").
#pragma once

#include <cstdint>

#include "npu/hw_config/hw_config.hpp"

namespace npu::isa {

/// The figures dma_descriptor_ns() uses, derived once from a validated HwConfig by
/// dma_stream_model(). Rates in GB/s == bytes/ns, times in ns.
struct DmaStreamModel {
  /// Latency of a descriptor's first request: a closed bank, (tRCD + CL + data + 1) x tCK
  /// + (sram.latency_cycles + ceil(burst / sram.bytes_per_cycle) + 1) core cycles; the
  /// fixed memory's latency_ns. Every descriptor pays it: an engine starts its next
  /// descriptor when the last burst of the previous one is done (hw_models/dma).
  double first_burst_ns = 0;
  /// Rate of the first row page (or of the whole stream when it does not change channel
  /// per page): one channel at its column-command spacing (isa::sequential_stream_gbps).
  double first_page_gbps = 0;
  /// Bytes streamed at first_page_gbps before sustained_gbps sets in (a row page of one
  /// channel; 0 when the stream spreads over every channel from its first burst).
  double first_page_bytes = 0;
  /// Rate after the first page: min(sequential_stream_gbps with the page-switch latency,
  /// the per-engine Little's-law rate channels x window x burst / row-conflict latency).
  double sustained_gbps = 0;
  /// 1 / (1 - (tRP + tRFC) / tREFI): the rank the stream is on refreshes every tREFI
  /// (all-bank refresh after a precharge-all); 1 for the fixed memory.
  double refresh_factor = 1;
  /// false: no rate (a config without memory timing); dma_descriptor_ns() returns 0.
  bool valid() const { return first_page_gbps > 0 && sustained_gbps > 0; }
};

/// The model of `hw` (a validated config). Page switches (multi-channel DDR whose channel bits
/// lie above the column bits, e.g. rorabgbachco): the engine moves to the next channel's page
/// once the window W of requests to this page is in flight, and that page's first data come
/// after a closed bank's DDR latency S = (tRCD + CL + data + 1) x tCK (the SRAM side overlaps
/// the previous page), so a page of n = page bytes / burst requests of t ns each takes
///   period = max(S + max(n - W, 0) x t, n x t / channels)
/// and sustained = page bytes / period (capped by sequential_stream_gbps). Throws nothing.
DmaStreamModel dma_stream_model(const HwConfig& hw);

/// Estimated ns of one LOAD or STORE descriptor moving `bytes` (whole DMA bursts) alone on
/// its engine:
///   first_burst_ns + refresh_factor x (min(bytes, first_page_bytes) / first_page_gbps
///                                      + max(bytes - first_page_bytes, 0) / sustained_gbps)
/// 0 for 0 bytes or an invalid model. On the four presets within 5 % of the simulated time
/// of a 64 KiB and a 256 KiB LOAD (tests/sim/test_dma_time_estimate.cpp).
double dma_descriptor_ns(const DmaStreamModel& m, std::uint64_t bytes);

/// Estimated ns of `count` descriptors of `bytes` in total (bytes / count each, run one after
/// the other on one engine): count x dma_descriptor_ns(m, bytes / count). LOADs and STOREs run
/// on their own engines but share the DDR, which serves them together at one stream's rate
/// (a 256 KiB LOAD and STORE issued together take the sum of their times alone in the
/// simulator, on every preset), so a layer's DMA time is the sum over its loads and stores.
/// count 0 with bytes > 0 counts as 1. Throws nothing.
double dma_transfers_ns(const DmaStreamModel& m, std::uint64_t bytes, std::uint64_t count);

/// Estimated ns of one LOAD of `load_bytes` and one STORE of `store_bytes` started together on
/// their own engines: the two first-burst latencies overlap, the streams do not (the DDR serves
/// both at one stream's rate), so
///   first_burst_ns + (dma_descriptor_ns(load) - first_burst_ns) + (dma_descriptor_ns(store) - first_burst_ns)
/// (either side 0 bytes: the other's dma_descriptor_ns). Throws nothing.
double dma_load_store_ns(const DmaStreamModel& m, std::uint64_t load_bytes, std::uint64_t store_bytes);

}  // namespace npu::isa
