// The plan of an experiment or sweep folder (DIR/plan.json): every cell it is meant to hold,
// with its content key, so that `npu report` can merge folders, fill speedups across shards
// and list the cells that are missing. Format: docs/sweep.md, "plan.json".
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "npu/sim/experiment/experiment.hpp"
#include "npu/sim/experiment/sweep_configs.hpp"
#include "npu/sim/experiment/sweep_spec.hpp"

namespace npu::sim {

struct PlannedCell {
  std::string key;           ///< cell_key() of the resolved inputs
  std::string group;         ///< group_key(): cells sharing the `none` baseline
  std::string model;         ///< model stem (summary column)
  std::string model_arg;     ///< zoo name or .onnx path the child is given
  std::string hw;            ///< config name (summary column)
  std::string hw_arg;        ///< config path the child is given (relative to the folder for sweeps)
  std::string strategy;      ///< strategy name (summary column)
  std::string strategy_arg;  ///< built-in name or strategy file path the child is given
  std::vector<std::pair<std::string, std::string>> axes;  ///< sweep axis path -> value (empty for experiments)
  std::string run_dir;       ///< the cell's folder, relative to the folder holding plan.json
  std::string invalid;       ///< sweep config that fails validation: the reason (never run)
};

struct Plan {
  std::string kind;                ///< "sweep" or "experiment"
  std::string tool;                ///< tool_identity() of the planning tool
  std::vector<std::string> axes;   ///< axis paths in column order
  std::vector<PlannedCell> cells;  ///< plan order (shards take every N-th from here)
  /// Options every child gets (from the spec or the experiment's flags).
  std::vector<std::string> traces, input_shapes;
  std::int64_t dynamic_size = 0;
  bool npu_only = false;
};

/// Every cell of a sweep: config cells x models x strategies, model slowest, strategy fastest.
/// run_dir is cells/<key>, hw_arg cells/<key>/<hw>.yaml. Throws ConfigError if a model
/// cannot be read.
Plan plan_sweep(const SweepSpec& spec);
/// The same from config cells already planned (plan_configs(spec)), so a caller that needs
/// them too plans them once.
Plan plan_sweep(const SweepSpec& spec, const std::vector<ConfigCell>& configs);

/// Every job of an experiment (ignoring --shard), in plan_experiment order; run_dir is
/// runs/<id>. Throws ConfigError for unreadable models or configs (validate_experiment first).
Plan plan_experiment_cells(const ExperimentOptions& opt);
/// The cells of the given jobs (their own list, e.g. `npu llm`'s steps), with the run options
/// of `opt` (traces, input shapes and the like) in every key; run_dir is runs/<job id>. Throws
/// as plan_experiment_cells.
Plan plan_job_cells(const ExperimentOptions& opt, const std::vector<ExperimentJob>& jobs);

/// Writes DIR/plan.json atomically (write_file_atomic): concurrent shards writing the same
/// plan never leave a torn file.
void write_plan(const std::string& dir, const Plan& plan);

/// DIR/plan.json written as a stream: the header (kind, tool, axes, options of `header`; its
/// cells are ignored) when opened, each cell as add() gets it, renamed into place by
/// commit() (a writer destroyed before commit() leaves the previous plan.json). The text is
/// write_plan's, byte for byte (nlohmann::ordered_json's dump(1) of the whole plan), but
/// only one cell is held at a time. Throws ConfigError when DIR/plan.json cannot be written.
class PlanWriter {
 public:
  PlanWriter(const std::string& dir, const Plan& header);
  ~PlanWriter();
  PlanWriter(const PlanWriter&) = delete;
  PlanWriter& operator=(const PlanWriter&) = delete;
  void add(const PlannedCell& cell);
  /// Cells added so far.
  std::size_t count() const { return count_; }
  void commit();

 private:
  struct File;
  std::unique_ptr<File> file_;
  std::size_t count_ = 0;
};

/// A sweep's plan, streamed: the header of plan_sweep(spec) (cells empty), then `sink` gets
/// each cell in plan_sweep's order (model slowest, strategy fastest) with the index of its
/// config point in `points` (plan_config_points(spec)). The cells are plan_sweep's, field
/// for field. Throws ConfigError if a model cannot be read.
Plan plan_sweep_header(const SweepSpec& spec);
void plan_sweep_cells(const SweepSpec& spec, const std::vector<ConfigPoint>& points,
                      const std::function<void(const PlannedCell&, std::size_t)>& sink);

/// Reads DIR/plan.json. Throws ConfigError naming the folder when it is absent ("not an
/// experiment or sweep folder") or malformed.
Plan read_plan(const std::string& dir);

}  // namespace npu::sim
