// How many requests a DMA engine keeps in flight and issues per cycle when the config leaves
// it to the model (dma.max_outstanding / dma.requests_per_cycle absent): Little's law.
#pragma once

#include "npu/hw_config/hw_config.hpp"

namespace npu::hw {

/// The DMA front end's resolved issue width and outstanding-request window, with the figures
/// the Little's-law sizing used (docs/timing.md, "DMA").
struct DmaSizing {
  int requests_per_cycle = 1;        ///< requests issued per core cycle (all channels together)
  int outstanding_per_channel = 1;   ///< requests in flight per engine and per DDR channel
  bool outstanding_derived = false;  ///< true: sized by Little's law (dma.max_outstanding absent)
  bool width_derived = false;        ///< true: = ddr.channels (dma.requests_per_cycle absent)
  double channel_gbps = 0;           ///< peak of one channel: data_rate x bus bytes (GB/s = B/ns)
  double loaded_latency_ns = 0;      ///< the latency the window must cover, ns (below)
};

/// Resolve the DMA front end of `hw`.
///
/// requests_per_cycle = dma.requests_per_cycle if set, else ddr.channels (one request port per
/// DDR channel, as multi-channel memory controllers expose one AXI port per channel).
///
/// outstanding_per_channel = dma.max_outstanding if set, else Little's law (J. D. C. Little,
/// "A proof for the queuing formula L = lambda W", Operations Research 9(3), 1961): the number
/// of requests in flight that sustains a channel's peak is its bandwidth times the latency
/// each request spends in flight, in bursts:
///
///   N = ceil(channel_gbps x loaded_latency_ns / dma.burst_bytes)
///   channel_gbps      = data_rate_mtps x 1e6 x bus_width_bits / 8 / 1e9
///   loaded_latency_ns = (tRP + tRCD + CL + BL/2 + 1) x tCK               (DDR, row conflict)
///                     + (sram.latency_cycles + ceil(burst_bytes / sram.bytes_per_cycle)
///                        + 1) x core period                               (SRAM write + issue)
///
/// The DDR term is the model's row-conflict read latency (unloaded_read_latency_ck,
/// docs/ddr.md "Scheduler"): a request of a stream that must first close and open a row still
/// finds the data bus busy with the window's other requests. The SRAM term is the LOAD's write
/// into SRAM (the slot frees when it is done) plus the core cycle in which the request issues.
/// Clamped to [1, 4096] (the limit of the key). Writes (STORE) see CWL instead of CL, never more.
/// Throws nothing; `hw` must be a validated config (positive rates and widths).
DmaSizing dma_sizing(const HwConfig& hw);

}  // namespace npu::hw
