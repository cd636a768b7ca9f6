// Runs `npu llm`'s plan (one child `npu simulate` per run, `npu experiment`'s runner) and
// writes its outputs: summary.{csv,json,md} (the experiment table of every run), llm.{csv,json,md}
// and steps/*.csv. docs/llm.md.
#pragma once

#include <string>
#include <vector>

#include "npu/sim/llm/llm_plan.hpp"

namespace npu::sim {

struct LlmResult {
  std::string text;   ///< what `npu llm` prints: the experiment table, then the LLM table
  std::size_t pairs = 0;   ///< hw/strategy pairs (llm.* rows)
  std::size_t failed = 0;  ///< hw/strategy pairs with a run that failed (llm.* rows with status "failed")
  /// steps/*.csv (and so plots) exist: at least one pair's runs all succeeded.
  bool wrote_steps() const { return pairs > failed; }
  std::vector<std::string> failed_pairs;  ///< "hw strategy (run id: error)" of each, for the closing message
  int interrupted_by = 0;  ///< SIGINT/SIGTERM that stopped the runs (their children waited for); 0: none
  std::size_t runs = 0;    ///< simulations the plan holds (prefill and decode steps of every pair)
  std::size_t reused = 0;  ///< of them, read back from an earlier run into the folder (same cell key)
};

/// Runs every run of `plan` and writes the outputs into opt.out_dir. Throws ConfigError for an
/// unwritable folder.
LlmResult run_llm(const LlmOptions& opt, const ModelSource& source, const LlmPlan& plan);

}  // namespace npu::sim
