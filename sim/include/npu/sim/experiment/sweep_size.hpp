// The size bound of a sweep (`npu sweep --max-cells`), checked before any planning.
#pragma once

#include <cstddef>

#include "npu/sim/experiment/sweep_spec.hpp"

namespace npu::sim {

/// Default of `npu sweep --max-cells`: cells (configs x models x strategies) a sweep may plan.
/// Each cell is one simulation of seconds to minutes, so 20,000 cells are days of CPU; the
/// largest sweep of docs/results.md has 1,080.
inline constexpr std::size_t kDefaultMaxSweepCells = 20000;

/// Cells of `spec` (product of the axes' lengths x models x strategies), saturating at
/// SIZE_MAX instead of wrapping.
std::size_t sweep_cell_count(const SweepSpec& spec);

/// Throws ConfigError "SPEC: error: the sweep has N cells ..." naming the product and
/// --max-cells when sweep_cell_count(spec) > max_cells; called before any planning.
void check_sweep_size(const SweepSpec& spec, std::size_t max_cells);

}  // namespace npu::sim
