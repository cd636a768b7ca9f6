// `npu report`: merges experiment and sweep folders (shards, reruns) into one summary, with
// speedups and DDR savings computed after the merge (docs/sweep.md, "npu report").
#pragma once

#include <string>
#include <vector>

namespace npu::sim {

/// What a merge found, by cell status.
struct ReportCounts {
  std::size_t cells = 0;      ///< distinct planned cells (by key)
  std::size_t ok = 0;         ///< run and read back
  std::size_t failed = 0;     ///< run and failed (RUN_DIR/failed.json)
  std::size_t invalid = 0;    ///< sweep configs that fail validation (never run)
  std::size_t missing = 0;    ///< planned, no result in any folder
  std::size_t conflicts = 0;  ///< the same key with different results in two folders
};

struct ReportResult {
  ReportCounts counts;
  std::string table;  ///< the text table and the status lines (what `npu report` prints)
};

/// Reads each folder's plan.json and its cells' results (RUN_DIR/run_summary.json or
/// failed.json), merges cells by key (first folder first; a key seen again must have the
/// same figures, else it is a conflict), computes speedup_vs_none and ddr_saved_pct against
/// the `none` cell of the same group (same config, model and options), and writes
/// OUT/summary.csv, summary.json and summary.md atomically. Every planned cell is a row:
/// status ok, failed, invalid, missing or conflict. Throws ConfigError for a folder that is
/// not an experiment or sweep folder, or an unwritable OUT. (npu sweep writes its own folder's
/// summary with it; `npu report` refuses such a folder first: refuse_tool_folder_as_report_out.)
ReportResult write_report(const std::vector<std::string>& dirs, const std::string& out_dir);

/// Throws ConfigError when `out_dir` holds an experiment's, a sweep's or an npu llm run's
/// results (a plan.json or an llm.json): the report's summary.csv/json/md would replace that
/// tool's own, and its next run would then find its summary unreadable. Given before anything
/// is written; a folder of an earlier `npu report` (no plan.json) is fine.
void refuse_tool_folder_as_report_out(const std::string& out_dir);

}  // namespace npu::sim
