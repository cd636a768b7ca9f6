#include "npu/sim/experiment/resource_steps.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "npu/hw_config/hw_config.hpp"

namespace npu::sim {

const std::vector<std::string>& resource_axes() {
  static const std::vector<std::string> axes = {"sram.capacity", "ddr.channels", "ddr.data_rate_mtps",
                                                "sram.bytes_per_cycle"};
  return axes;
}

namespace {

// The cell's value of `axis` ("" when it does not sweep it) and the others as one label.
std::pair<std::string, std::string> split_axes(const AxisCell& c, const std::string& axis) {
  std::string value, others;
  for (const auto& [path, v] : c.axes) {
    if (path == axis)
      value = v;
    else
      others += (others.empty() ? "" : " ") + path + "=" + v;
  }
  return {value, others};
}

struct Step {
  std::uint64_t at = 0;
  std::string text;
  const AxisCell* cell = nullptr;
};

// The lines of one axis, in the order of the groups' first cells.
void axis_lines(const std::vector<AxisCell>& cells, const std::string& axis, std::vector<std::string>& lines) {
  std::map<std::string, std::vector<Step>> groups;
  std::vector<std::string> order;
  for (const AxisCell& c : cells) {
    const auto [value, others] = split_axes(c, axis);
    const std::optional<std::uint64_t> at = value.empty() ? std::nullopt : parse_size_bytes(value);
    if (!at) continue;
    const std::string label = c.model + " " + c.strategy + (others.empty() ? "" : " " + others);
    if (!groups.count(label)) order.push_back(label);
    groups[label].push_back({*at, value, &c});
  }
  for (const std::string& label : order) {
    std::vector<Step>& g = groups[label];
    std::stable_sort(g.begin(), g.end(), [](const Step& a, const Step& b) { return a.at < b.at; });
    for (std::size_t i = 1; i < g.size(); ++i) {
      const AxisCell& lo = *g[i - 1].cell;
      const AxisCell& hi = *g[i].cell;
      if (g[i].at == g[i - 1].at || !(hi.latency_ms > lo.latency_ms * 1.001)) continue;
      lines.push_back(fmt::format("  {}: {:.3f} -> {:.3f} ms (+{:.1f} %), {:.2f} -> {:.2f} MB DDR, as {} goes {} -> {}",
                                  label, lo.latency_ms, hi.latency_ms, 100.0 * (hi.latency_ms / lo.latency_ms - 1.0),
                                  lo.ddr_mb, hi.ddr_mb, axis, g[i - 1].text, g[i].text));
    }
  }
}

}  // namespace

std::string resource_step_lines(const std::vector<AxisCell>& cells, std::size_t max_lines) {
  std::vector<std::string> lines;
  for (const std::string& axis : resource_axes()) axis_lines(cells, axis, lines);
  if (lines.empty()) return "";
  std::string out = fmt::format(
      "slower with more of a resource: {} step(s) (the compiler chose other tiles, plans or stacks for the larger "
      "config by its estimates; docs/results.md \"Monotonicity\"; plan_sram_bytes in summary.csv says which SRAM "
      "plan ran):\n",
      lines.size());
  for (std::size_t i = 0; i < lines.size() && i < max_lines; ++i) out += lines[i] + "\n";
  if (lines.size() > max_lines) out += fmt::format("  ... and {} more\n", lines.size() - max_lines);
  return out;
}

}  // namespace npu::sim
