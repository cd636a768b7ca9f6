// A sweep that changes the DDR data rate keeps the DDR timings in clocks (docs/config.md:
// `ddr.timing` is in tCK), so every timing's nanoseconds scale with the rate: the note says so.
#pragma once

#include <string>

#include "npu/sim/experiment/sweep_configs.hpp"
#include "npu/sim/experiment/sweep_spec.hpp"

namespace npu::sim {

/// When `spec` sweeps ddr.data_rate_mtps and no ddr.timing key (neither in an axis nor in `set`):
/// "npu sweep: note: ddr.data_rate_mtps is swept with ddr.timing fixed in clocks (tCK = 2000 /
/// data_rate_mtps ns): tREFI = 12480 tCK is 7.80 us at 3200 MT/s, 10.40 us at 2400 MT/s; ..."
/// with the base config's tREFI and tRCD at the lowest and highest rate some valid config point
/// of `points` (plan_config_points(spec), in its order) runs at, and the fix (zip the ddr.timing
/// keys with the rate, docs/sweep.md). "" otherwise, also when no rate's point is valid. Reads the
/// base config; throws as load_hw_config.
std::string sweep_clock_note(const SweepSpec& spec, const std::vector<ConfigPoint>& points);

}  // namespace npu::sim
