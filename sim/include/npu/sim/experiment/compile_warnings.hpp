// The experiment summary's "compile:" lines: the warnings of a run's compile that no other line
// under the table shows (nodes removed as dead, training Dropouts run as the identity, sizes
// known only at run time...), so what was not simulated as given is never only in log.txt.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "npu/sim/experiment/experiment.hpp"

namespace npu::sim {

/// True for a compile warning another line under the summary's table already shows: the host
/// share of MACs and host tensors sized at run time (host: lines, from host_nodes / host_unsized),
/// and the SRAM-plan ladder skipped for a large model (sram: lines). Params-region and precision
/// warnings are sorted out before this is asked.
bool shown_by_host_or_ladder_lines(const std::string& warning);

/// A warning without its "SOURCE: " prefix: from "warning: " or "note: " on (the whole text
/// when it has neither).
std::string without_source(const std::string& warning);

/// One line per model and warning text, "compile: MODEL: TEXT (N run(s))", over the ok runs'
/// compile_warnings, in a deterministic order; "" when there are none. `model_name` names a
/// run's model (its family for a zoo LLM's phases).
std::string compile_warning_lines(const std::vector<const RunSummary*>& runs,
                                  const std::function<std::string(const RunSummary&)>& model_name);

}  // namespace npu::sim
