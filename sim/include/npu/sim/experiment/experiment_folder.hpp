// An experiment's output folder (--out DIR) shared between runs of `npu experiment`:
//  - a lock, so that two experiments writing into one folder at once cannot overwrite each
//    other's summary (the second used to exit 0 with only its own rows);
//  - a merge, so that re-running a subset into an old folder keeps the earlier results that
//    are still there (marked as such) and removes what is stale, instead of replacing the
//    summary and leaving stale runs/, layers/ and plots/ behind.
// Formats and rules: docs/experiment.md, "Re-running into a folder".
#pragma once

#include <string>
#include <vector>

#include "npu/sim/experiment/cell_plan.hpp"
#include "npu/sim/experiment/experiment.hpp"

namespace npu::sim {

/// An exclusive flock(2) on DIR/.lock, held for the object's lifetime (released by the
/// kernel if the process dies, so a crash leaves no stale lock). The file records the
/// holder's pid, command line and start time (UTC) for the message another run shows.
class FolderLock {
 public:
  /// Takes the lock without waiting. Throws npu::ConfigError when another process holds it:
  ///   "--out 'DIR': error: another WHO is writing into this folder
  ///    (pid P, started YYYY-MM-DD HH:MM:SS UTC: COMMAND)" and the fix.
  /// `dir` must exist (validate_experiment creates it). `name`: the lock file in DIR (a sweep
  /// shard locks its own, so the shards of one sweep share a folder); `who`: what holds it.
  explicit FolderLock(const std::string& dir, const std::string& name = ".lock",
                      const std::string& who = "npu experiment");
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  int fd_ = -1;
};

/// What merging changed in the folder (for the tool's closing lines).
struct MergeReport {
  int kept_earlier = 0;       ///< rows of earlier runs kept (their results still valid)
  int dropped_earlier = 0;    ///< rows of earlier runs dropped (result missing, failed or malformed)
  int removed_stale = 0;      ///< runs/<id>/ folders and layers/<id>.csv files removed
  int removed_plots = 0;      ///< plots/*.png made from the previous summary, removed
};

/// The runs of this invocation (`runs`, in plan order) followed by every row of the folder's
/// previous summary.json whose run is not among them and whose runs/<id>/run_summary.json
/// still holds a valid result (RunSummary::earlier_run = true). Then removes what an experiment
/// wrote and no row describes: layers/<id>.csv (a run id's name) of runs that are not ok,
/// runs/<id>/ folders (holding cell.json, run_summary.json or log.txt) of no row, and the
/// plots scripts/plot_experiment.py draws (plots/strategies_*, layers_*, roofline_*.png). The
/// user's own files in the folder stay. Call with the folder lock held, after run_experiment
/// and before write_summary.
std::vector<RunSummary> merge_with_earlier_runs(const std::string& out_dir, const std::vector<RunSummary>& runs,
                                                MergeReport& report);

/// The plan of a folder whose summary now also holds kept earlier rows: `now`'s cells, then
/// for each row of `merged` marked earlier_run its cell from `earlier` (the folder's plan.json
/// before this experiment rewrote it; matched by run folder), or, when that plan is absent or
/// lacks it, the cell planned again with `opt`'s options (left out when its model or config file
/// is gone since). So `npu report` on the folder lists every row of its summary (new-user
/// finding: it listed only the re-run's cells).
Plan plan_with_earlier_rows(const Plan& now, const Plan* earlier, const std::vector<RunSummary>& merged,
                            const ExperimentOptions& opt);

}  // namespace npu::sim
