// `npu sweep SPEC.yaml --out DIR`: runs every cell of a design-space sweep that is not done
// yet, each as its own `npu simulate` process (the experiment's runner), under
// DIR/cells/<key>/, and writes DIR/plan.json and DIR/summary.{csv,json,md}. docs/sweep.md.
#pragma once

#include <string>

#include "npu/sim/experiment/report.hpp"
#include "npu/sim/experiment/sweep_size.hpp"

namespace npu::sim {

struct SweepOptions {
  std::string spec_path;
  std::string out_dir;
  int jobs = 1;               ///< processes at a time
  std::string shard;          ///< "i/N": only cells with plan index % N == i (empty: all)
  bool retry_failed = false;  ///< run cells that failed before again (else they count as done)
  std::string self_exe;       ///< the npu binary children run with
  std::size_t max_cells = kDefaultMaxSweepCells;  ///< refuse a larger sweep before planning
  bool quiet = false;         ///< no progress line on stderr (-q)
};

struct SweepOutcome {
  std::size_t planned = 0;   ///< cells in the whole sweep
  std::size_t in_shard = 0;  ///< cells of this shard
  std::size_t skipped = 0;   ///< of those, done before (ok, or failed without --retry-failed)
  std::size_t invalid = 0;   ///< of those, invalid configs (never run)
  std::size_t ran = 0;       ///< run by this call
  std::size_t failed = 0;    ///< cells of this shard that failed (this call or before)
  std::size_t planned_invalid = 0;  ///< cells of the whole sweep (every shard) whose config is invalid
  std::string first_invalid;        ///< "HW: reason" of the first invalid cell of the plan ("" if none)
  int interrupted_by = 0;    ///< SIGINT/SIGTERM that stopped this call (its cells are run by the next); 0: none
  /// Folders under DIR/cells that are no cell of this plan (an earlier spec's, run into the same
  /// folder): kept on disk, but plan.json and the summary are this spec's alone.
  std::size_t stale_cells = 0;
  ReportResult report;       ///< DIR/summary.* over every cell of DIR
};

/// Loads the spec, plans every cell, writes DIR/plan.json, runs this shard's cells that are
/// not done (a cell is done when RUN_DIR/run_summary.json, written atomically by the child,
/// reads back, or when RUN_DIR/failed.json exists and retry_failed is false), then writes
/// DIR/summary.* from everything DIR holds (under an flock on DIR/.summary.lock, so the last
/// of several concurrent shards sees every cell). Interrupted (SIGINT/SIGTERM; run_experiment),
/// it stops its children and still writes the summary, the cells not finished 'missing'. Throws
/// ConfigError for a bad spec, shard, -j or output folder, and for more cells than max_cells
/// (check_sweep_size), before any cell runs. Planning prints progress to stderr about once a
/// second when it takes longer.
SweepOutcome run_sweep(const SweepOptions& opt);

/// The error when no cell of the sweep can run (every planned cell's config is invalid: the
/// loader refused every config point), naming the count, the first reason and the fix; "" when
/// some cell is valid. `npu sweep` prints it and exits 1 (invalid cells beside valid ones are
/// reported as skipped and do not change the exit status).
std::string all_invalid_error(const SweepOutcome& out, const std::string& out_dir);

/// Parses "i/N" (0 <= i < N). Throws ConfigError "--shard 'X': error: ..." otherwise.
std::pair<int, int> parse_shard(const std::string& text);

}  // namespace npu::sim
