// The sweep summary's lines for cells that got slower with more of a resource: more SRAM, DDR
// channels, a higher DDR data rate or wider SRAM ports. The simulator times the program the
// compiler chose for each config, and the compiler chooses by estimates, so such a step is
// possible (docs/results.md, "Monotonicity"); it is said under the table, not left for the
// user to find in a plot.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace npu::sim {

/// One ok cell of a sweep as the check sees it.
struct AxisCell {
  std::string model, strategy;
  std::vector<std::pair<std::string, std::string>> axes;  ///< sweep axis path -> value, as planned
  double latency_ms = 0;
  double ddr_mb = 0;  ///< DDR bytes read + written, 10^6 B
};

/// The axes where more should never be slower: sram.capacity, ddr.channels,
/// ddr.data_rate_mtps, sram.bytes_per_cycle.
const std::vector<std::string>& resource_axes();

/// For each resource axis, the cells that differ in it alone (same model, strategy and every
/// other axis value), in ascending order of its value (read by parse_size_bytes: 1MiB, 768KiB,
/// 3200); one line per neighbouring pair whose latency rises by more than 0.1 %:
///   "  mobilenet_v2 depth-first ddr.data_rate_mtps=3200: 3.688 -> 3.741 ms (+1.4 %), 3.71 ->
///    4.81 MB DDR, as ddr.channels goes 1 -> 2"
/// under a heading, at most `max_lines` of them and a count of the rest; "" when there is none.
std::string resource_step_lines(const std::vector<AxisCell>& cells, std::size_t max_lines = 20);

}  // namespace npu::sim
