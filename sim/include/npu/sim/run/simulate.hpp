// One experiment cell in one process: load a model, compile it for one strategy, simulate
// the program on one hardware config, write the run folder (docs/experiment.md).
#pragma once

#include <string>
#include <vector>

#include "npu/compiler/driver/compile_report.hpp"
#include "npu/sim/run/run_stats.hpp"

namespace npu::sim {

struct SimulateOptions {
  std::string model;     ///< zoo name or .onnx path
  std::string hw;        ///< YAML config path
  std::string strategy;  ///< built-in name or strategy YAML path
  std::string out_dir;   ///< run folder (created)
  std::vector<std::string> traces;  ///< subset of {ddr, timeline, vcd}
  std::vector<std::string> input_shapes;  ///< NAME=1x3x224x224 overrides
  bool npu_only = false;  ///< any host placement is an error (--npu-only)
  bool no_pipeline = false;  ///< keep every fence between layers (--no-pipeline; compiler/pipeline.hpp)
  /// compile for the configured SRAM only (--no-smaller-sram-plans; compiler/sram_plans.hpp)
  bool no_smaller_sram_plans = false;
  std::int64_t dynamic_size = 0;  ///< upper bound for run-time sizes (--dynamic-size; 0 none)
  bool dropout_as_identity = false;  ///< --dropout-as-identity (LoadOptions)
  std::uint64_t max_instructions = 0;  ///< --max-instructions (0: the compiler's default limit)
  bool trace_compress = false;    ///< --trace ddr writes ddr.csv.gz instead of ddr.csv
  /// --with-data (docs/functional.md): execute with values; each graph output is written as
  /// outputs/NAME.npy and outputs/NAME.pb. Inputs from input_data (NAME=FILE, .npy or
  /// TensorProto; a single FILE for a one-input model), the others seeded U(-1, 1) by input_seed.
  bool with_data = false;
  std::vector<std::string> input_data;
  std::uint64_t input_seed = 1;
  bool allow_nonfinite = false;  ///< NaN/Inf in input_data files: warn instead of refusing
};

struct SimulateResult {
  compiler::CompileReport report;
  RunResult run;
  std::vector<std::string> output_files;  ///< --with-data: the files written
  /// SRAM (bytes) the program was compiled for (compiler::CompileResult::plan_sram_bytes).
  std::uint64_t plan_sram_bytes = 0;
  std::uint64_t sram_bytes = 0;  ///< the config's sram.capacity (bytes)
};

/// Compiles and simulates; writes program.npuasm, compile_report.csv, run.json, layers.csv,
/// run_summary.json and the requested traces (ddr.csv or ddr.csv.gz, ddr.trace, timeline.json,
/// waves.vcd) into out_dir; warns on stderr before a DDR trace above kLargeTraceBytes. Call once per process (SystemC). Throws npu::ConfigError for
/// bad input (model, config, strategy, unwritable folder) and simulation errors.
SimulateResult simulate(const SimulateOptions& opt);

/// Per-layer rows joining the compile report (nodes, compulsory and planned bytes) with
/// the run's layer statistics; columns in docs/experiment.md. `stream_gbps`: the config's
/// sequential-stream rate (isa::sequential_stream_gbps), written beside the peak.
std::string layers_csv(const std::string& model, const std::string& hw, const std::string& strategy,
                       const compiler::CompileReport& report, const RunResult& run, double stream_gbps);

/// Removes from `out_dir` what an earlier run there wrote, before `npu run` writes its own:
/// run.json and layers.csv (a failed run must not leave them looking like its own),
/// run_summary.json (an `npu simulate` or experiment cell's summary, which would disagree with
/// the new run.json) and the traces ddr.csv, ddr.csv.gz, ddr.trace, timeline.json and waves.vcd
/// (a trace not asked for this time would look like this run's). The program and
/// its compile_report.csv stay: `npu run DIR/program.npuasm --out DIR` reruns them in place.
/// Missing files are not an error.
void remove_stale_run_outputs(const std::string& out_dir);

}  // namespace npu::sim
