// The size bound of a sweep (sweep_size.hpp, docs/sweep.md "Size limit").
#include "npu/sim/experiment/sweep_size.hpp"

#include <limits>

#include <fmt/format.h>

#include "npu/base/config_error.hpp"

namespace npu::sim {

std::size_t sweep_cell_count(const SweepSpec& spec) {
  constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max();
  std::size_t n = 1;
  auto times = [&](std::size_t k) { n = (k != 0 && n > kMax / k) ? kMax : n * k; };
  for (const auto& a : spec.axes) times(a.values.size());
  times(spec.models.size());
  times(spec.strategies.size());
  return n;
}

void check_sweep_size(const SweepSpec& spec, std::size_t max_cells) {
  const std::size_t n = sweep_cell_count(spec);
  if (n <= max_cells) return;
  std::string product;
  for (const auto& a : spec.axes) product += fmt::format("{} x ", a.values.size());
  product += fmt::format("{} model(s) x {} strategy(ies)", spec.models.size(), spec.strategies.size());
  const std::string count = n == std::numeric_limits<std::size_t>::max() ? "at least 2^64 - 1" : fmt::format("{}", n);
  throw ConfigError(fmt::format(
      "{}: error: the sweep has {} cells ({}), above the limit of {} (--max-cells)\n  each cell is one "
      "simulation of seconds to minutes; split the axes into several sweeps, or raise the limit with "
      "--max-cells {} if you mean it",
      spec.source, count, product, max_cells, n));
}

}  // namespace npu::sim
