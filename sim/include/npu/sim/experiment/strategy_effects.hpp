// Why a strategy changed what it changed, and why it changed nothing: one line per run of the
// experiment summary, drawn from the pass effects each run recorded (run_summary.json
// "pass_effects", counted from `npu compile --explain`'s decisions). docs/experiment.md
// "Why a strategy changed nothing".
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "npu/sim/experiment/experiment.hpp"

namespace npu::sim {

/// True when `r` and its `none` baseline ran the same cycles and moved the same DDR bytes
/// (read and write): the strategy changed nothing the summary measures.
bool same_as_baseline(const RunSummary& r, const RunSummary& baseline);

/// The lines under the summary table: a heading, then for each successful run with pass
/// effects (not `none`) "MODEL HW STRATEGY: EFFECTS", where a run the same as its `none` run
/// (same_as_baseline) says "changed nothing against none: " and each declining pass its first
/// decline's reason. `baseline_of` gives a run's `none` run or nullptr. "" when no run has
/// pass effects.
std::string strategy_effect_lines(const std::vector<RunSummary>& runs,
                                  const std::function<const RunSummary*(const RunSummary&)>& baseline_of);

/// run_summary.json's "pass_effects" (absent: empty). Throws nlohmann::json's errors for a
/// malformed entry (read_run_summary reports them as a malformed file).
std::vector<compiler::PassEffect> read_pass_effects(const nlohmann::json& run_summary);

/// Sets summary.json's "pass_effects" (an array of {pass, applied, declined, verb,
/// first_decline, summary}), "changed_nothing" (true/false against `baseline`, null without one)
/// and "strategy_effect" (the line's text after the run's names).
void put_pass_effects(nlohmann::json& entry, const RunSummary& r, const RunSummary* baseline);

}  // namespace npu::sim
