// The trace kinds of --trace (docs/experiment.md "Traces"): one check for every command that
// takes the flag (npu run, simulate, experiment).
#pragma once

#include <string>
#include <vector>

namespace npu::sim {

/// ddr (the DDR transaction CSV), timeline (Perfetto JSON), vcd (waveforms).
const std::vector<std::string>& trace_kinds();

/// Throws ConfigError for a --trace value that is no trace kind: "--trace 'DDR': error: unknown
/// trace kind (did you mean 'ddr'?)\n  allowed: ddr, timeline, vcd" (the suggestion from
/// closest_name, when one is near), or for an empty entry ("--trace '': error: empty entry ...").
void check_trace_kind(const std::string& kind);

/// Throws ConfigError for a --trace value with an empty entry ("", ",ddr", "ddr,,vcd"), quoting
/// the value: "--trace 'ddr,,vcd': error: empty entry; ...".
void check_trace_value(const std::string& value);

}  // namespace npu::sim
