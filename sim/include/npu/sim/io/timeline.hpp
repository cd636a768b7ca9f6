// Timeline of a run as Chrome trace-event JSON (opens in Perfetto / chrome://tracing):
// one track (thread) per unit -- DMA load, DMA store, MAC array, activation unit -- and one
// complete ("X") slice per instruction, named by its layer, with args opcode, bytes, MACs.
// Times in microseconds with ns resolution. Format: traces/README.md.
#pragma once

#include <string>

#include "npu/sim/run/run_stats.hpp"

namespace npu::sim {

/// The trace-event JSON text (deterministic: fixed key order and number formatting).
std::string timeline_json(const RunResult& r);

/// Writes timeline_json(r) to `path`; throws ConfigError when it cannot.
void write_timeline(const RunResult& r, const std::string& path);

}  // namespace npu::sim

namespace npu::sim {

/// SystemC's sc_create_vcd_trace_file() appends ".vcd": the name to give it for `path`.
std::string vcd_base_name(const std::string& path);

/// Writes the VCD file SystemC wrote at `written` to `path` (atomically) with its wall-clock
/// `$date` section replaced by a fixed text, so two identical runs give byte-identical
/// waveforms, and removes `written`. Throws ConfigError when it cannot.
void make_vcd_reproducible(const std::string& written, const std::string& path);

}  // namespace npu::sim
