// Resuming experiment and sweep folders: a cell whose folder already holds its result is not
// run again. A sweep cell's folder is named by its content key (cells/<key>/); an experiment
// run's folder by its labels (runs/<model>__<hw>__<strategy>/), so the key it was run with is
// recorded in its cell.json and must equal the planned key. docs/sweep.md ("Resume") and
// docs/experiment.md ("Resuming and interruption").
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "npu/sim/experiment/cell_plan.hpp"
#include "npu/sim/experiment/experiment.hpp"

namespace npu::sim {

/// What a cell's folder holds from an earlier run.
enum class CellState {
  NotDone,  ///< nothing usable
  Ok,       ///< RUN_DIR/run_summary.json (written atomically by the child) reads back
  Failed,   ///< RUN_DIR/failed.json: the child exited non-zero
};

/// The state of the cell in `run_dir` (see CellState; a readable result wins over failed.json).
CellState cell_state(const std::string& run_dir);

/// The key in RUN_DIR/cell.json; "" when the file is absent or malformed.
std::string recorded_cell_key(const std::string& run_dir);

/// Writes RUN_DIR/cell.json atomically: key, model (argument), hw, strategy (argument),
/// `spec` when not empty (a sweep's spec source) and axis values. Creates RUN_DIR.
void write_cell_record(const std::string& run_dir, const PlannedCell& cell, const std::string& hw,
                       const std::string& spec);

/// `npu experiment` with resume: every job of `opt` (its shard) whose runs/<id>/ holds an ok
/// result recorded under the same cell key as in `plan` (same model content, config content,
/// strategy, options and tool) is reused (read back, its layers.csv copied as a fresh run's
/// is); the others get a fresh cell.json (any older result removed) and run
/// (run_experiment: interruption included). Results in plan order; `reused` counts the
/// reused jobs. Failed runs are run again.
std::vector<RunSummary> run_experiment_resumed(const ExperimentOptions& opt, const Plan& plan, std::size_t& reused);
/// The same for a list of jobs of its own (`npu llm`'s steps): `plan` holds a cell per job
/// (plan_job_cells), whose runs/<id>/ is reused or run as above.
std::vector<RunSummary> run_jobs_resumed(const ExperimentOptions& opt, const Plan& plan,
                                         const std::vector<ExperimentJob>& jobs, std::size_t& reused);

}  // namespace npu::sim
