// The fusion experiment: models x hardware configs x strategies, each compiled and
// simulated in its own process (SystemC elaborates once per process), summarised side by
// side. Output formats: docs/experiment.md.
#pragma once

#include <cstdint>
#include <optional>
#include <functional>
#include <string>
#include <vector>

#include "npu/compiler/transforms/pass_effect.hpp"
#include "npu/compiler/transforms/strategy.hpp"

namespace npu::sim {

/// One (model, hw, strategy) cell of an experiment.
struct ExperimentJob {
  std::string model;     ///< zoo name or .onnx path, as the user gave it
  std::string hw;        ///< YAML config path
  std::string strategy;  ///< strategy name (or a strategy YAML path)
  std::string run_dir;   ///< DIR/runs/<id>: where the child writes run.json, layers.csv, traces
  std::string id;        ///< "<model-stem>__<hw-stem>__<strategy>"
};

/// `npu experiment --verify` figures of one run (docs/functional.md, "What verify reports"):
/// the worst output of the run.
struct VerifyFigures {
  std::string sim_status;               ///< "ok", "failed: ...", "not run: WHY"
  std::optional<double> rel_error;      ///< fp32: max over outputs of max|sim - ref| / max|ref|
  std::optional<double> sqnr_db;        ///< fp32: lowest SQNR over outputs (dB; +inf identical)
  std::optional<bool> top1;             ///< every classifier output's argmax agrees (fp32)
  std::optional<double> quant_sqnr_db;  ///< int8: lowest SQNR of the PTQ model over outputs
  std::optional<bool> quant_top1;       ///< int8: the PTQ model's argmax agrees
  std::string bit_exact;                ///< int8 execution status; "n/a (fp32 config)" on fp32
  bool pass = true;                     ///< fp32: ran and within tolerance; int8: ran and bit-exact
};

/// What one run reports (read back from the child's run.json), in the summary's units.
struct RunSummary {
  ExperimentJob job;
  bool ok = false;
  std::string error;  ///< first line of the failure (when !ok)
  std::uint64_t cycles = 0;           ///< core clock cycles
  double latency_ms = 0;
  double ddr_read_mb = 0;             ///< MB = 1e6 bytes
  double ddr_write_mb = 0;
  /// The program's compulsory DDR bytes (inputs, weights, outputs once; RunResult) in MB;
  /// empty for a run.json written before this figure existed.
  std::optional<double> compulsory_mb;
  double mac_utilisation = 0;         ///< 0..1: MACs / (peak MACs/cycle x cycles)
  double ddr_bw_utilisation = 0;      ///< 0..1: bytes / (peak GB/s x latency)
  double peak_ddr_gbps = 0;           ///< the config's peak DDR bandwidth (0: run.json before the key)
  double stream_ddr_gbps = 0;         ///< one sequential stream's bound (isa::sequential_stream_gbps; 0: absent)
  std::optional<double> energy_mj;    ///< when the config has an energy section
  double wall_s = 0;                  ///< wall time of the child process
  double host_mac_share = 0;          ///< 0..1: MACs placed on the host (run_summary.json)
  double host_time_share = 0;         ///< 0..1: latency spent waiting for the host
  int host_nodes = 0;
  int host_unsized = 0;               ///< host tensors sized only at run time (not costed)
  /// The model's parameter count when it was over the SRAM-plan ladder's limit (1e9) and the
  /// run compiled for the configured SRAM only (run_summary.json "sram_ladder_skipped_params"); 0 otherwise.
  std::int64_t ladder_skipped_params = 0;
  /// SRAM (bytes) the run's program was compiled for: the configured capacity, or a smaller
  /// size the SRAM-plan ladder chose (run_summary.json "plan_sram_bytes"; 0: absent).
  std::uint64_t plan_sram_bytes = 0;
  /// The run's warnings about CONV/GEMM layers whose params region takes a quarter of the SRAM
  /// or more (run_summary.json "warnings"; compiler params_region_warning.hpp), in order.
  std::vector<std::string> params_region_warnings;
  /// The run's warnings that a precision key applied to less than it says: weight_dtype left
  /// CONV or shared weights in the array's dtype, kv_cache_dtype met no KV append
  /// (run_summary.json "warnings"; compiler precision_warnings.hpp), in order.
  std::vector<std::string> precision_warnings;
  /// Every warning and note of the run's compile (run_summary.json "warnings"), in order.
  std::vector<std::string> warnings;
  /// Those of them no other line under the summary's table shows (host, SRAM ladder, params
  /// region, precision): nodes removed, Dropouts run as the identity, sizes known only at run
  /// time, an all-view graph... each as its text after "warning: " / "note: ".
  std::vector<std::string> compile_warnings;
  /// SIGINT or SIGTERM that stopped this run, or kept it from starting (then !ok, and the
  /// summary's status is "interrupted"); 0 otherwise.
  int interrupted_by = 0;
  bool earlier_run = false;           ///< kept from an earlier experiment in the same --out (experiment_folder.hpp)
  std::optional<VerifyFigures> verify;  ///< with --verify
  /// What each pass of the strategy did (run_summary.json "pass_effects"); empty for a run
  /// written before that key existed.
  std::vector<compiler::PassEffect> pass_effects;
  double ddr_total_mb() const { return ddr_read_mb + ddr_write_mb; }
  /// DDR total / compulsory bytes (1.0 = only compulsory traffic); empty without a compulsory figure.
  std::optional<double> ddr_over_compulsory() const {
    if (!compulsory_mb || *compulsory_mb <= 0) return std::nullopt;
    return ddr_total_mb() / *compulsory_mb;
  }
};

struct ExperimentOptions {
  std::vector<std::string> models;
  std::vector<std::string> hws;
  std::vector<std::string> strategies;
  std::string out_dir;
  int jobs = 1;                        ///< processes at a time
  std::vector<std::string> traces;     ///< subset of {ddr, timeline, vcd}
  bool trace_compress = false;         ///< ddr traces as ddr.csv.gz (--trace-compress)
  std::string self_exe;                ///< the npu binary to run children with
  std::string shard;                   ///< "i/N": run only jobs with index % N == i (empty: all)
  bool npu_only = false;               ///< children fail on any host placement (--npu-only)
  std::int64_t dynamic_size = 0;       ///< passed to the children (--dynamic-size)
  bool dropout_as_identity = false;    ///< passed to the children (--dropout-as-identity)
  std::uint64_t max_instructions = 0;  ///< passed to the children (--max-instructions; 0: default)
  std::vector<std::string> input_shapes;  ///< NAME=1x3x224x224, passed to every child (--input-shape)
  bool copy_layers = true;             ///< copy each run's layers.csv to out_dir/layers/<id>.csv
  std::size_t progress_total = 0;      ///< cells the progress line counts (0: the jobs given)
  std::size_t progress_done = 0;       ///< of those, done before this call (a resumed sweep)
  bool quiet = false;                  ///< no progress line on stderr (-q)
  /// Children run with data (`--with-data`; fp32 configs): inputs from input_data (NAME=FILE
  /// or FILE), the others seeded by input_seed; used by `npu verify` and `experiment --verify`.
  bool with_data = false;
  std::vector<std::string> input_data;
  std::uint64_t input_seed = 1;
  bool allow_nonfinite = false;  ///< children get --allow-nonfinite (NaN/Inf in input_data files)
};

/// Every (model, hw, strategy) job in a fixed order (model, then hw, then strategy).
/// Throws ConfigError when two cells would share a run folder (the same model, hw and
/// strategy stems, e.g. a__edge.onnx x x.yaml and a.onnx x edge__x.yaml) or for a bad --shard.
std::vector<ExperimentJob> plan_experiment(const ExperimentOptions& opt);
/// Throws ConfigError naming both cells when two jobs have one id (run folder).
void refuse_shared_run_folders(const std::vector<ExperimentJob>& jobs);

/// Checks everything that can be checked before any work starts (model files exist or
/// are zoo names, strategies known, configs load and validate, output folder writable,
/// trace kinds known). Throws npu::ConfigError naming the bad input and the fix.
void validate_experiment(const ExperimentOptions& opt);
/// Part of validate_experiment (experiment_checks.cpp): a trace kind given twice, and each
/// --input-shape applied to every model (loading it), refused before any run with ConfigError.
void check_experiment_traces_and_shapes(const ExperimentOptions& opt);

/// Runs the jobs, up to opt.jobs child processes at a time (`npu simulate ...`), with a
/// progress line on stderr (done/total, failures, ETA; updated in place on a terminal, one
/// line per finished job otherwise). Results come back in plan order, failures included
/// (ok == false, error set). A child that exits non-zero leaves RUN_DIR/failed.json
/// ({"error", "exit_status"}, written atomically); one killed by a signal leaves nothing, so
/// a resumed sweep runs it again.
/// SIGINT or SIGTERM sent to this process while it runs is forwarded to the children (a
/// second one as SIGKILL); no new child starts, and the call returns once every child is gone,
/// the runs stopped or never started marked with RunSummary::interrupted_by (child_signals.hpp).
std::vector<RunSummary> run_experiment(const ExperimentOptions& opt, const std::vector<ExperimentJob>& jobs);

/// The summary of a finished run (its child exited with 0, now or in an earlier invocation):
/// its run_summary.json, and its layers.csv copied to OUT/layers/<id>.csv when
/// opt.copy_layers (a run whose layer table cannot be copied is not ok).
RunSummary collect_finished_run(const ExperimentOptions& opt, const ExperimentJob& job);

/// The signal that interrupted any of `runs` (run_experiment), or 0.
int interruption_of(const std::vector<RunSummary>& runs);

/// Reads a child's run.json (written by `npu simulate`); sets ok/error accordingly.
RunSummary read_run_summary(const ExperimentJob& job);

/// Writes DIR/summary.csv, summary.json, summary.md (speedup and DDR saved % relative to
/// the `none` run of the same model and hw, when present) and returns the text table. Runs
/// with VerifyFigures (--verify) add the columns verify_status ... bit_exact to summary.csv,
/// a "verify" object to summary.json and a verification table to the text and Markdown.
std::string write_summary(const std::string& out_dir, const std::vector<RunSummary>& runs);

/// A built-in strategy name or a strategy YAML path (.yaml/.yml). Throws ConfigError for an
/// unknown name (listing the built-in ones) or a bad file (file:line:col).
compiler::Strategy resolve_strategy(const std::string& name_or_path);

/// The strategy as summaries name it: a built-in name as is; for a strategy YAML path, the
/// file's `name:` (its file stem if the file cannot be read). Never a path.
std::string strategy_label(const std::string& name_or_path);

/// File-name-safe stem of a model or config argument ("configs/edge.yaml" -> "edge"): the
/// file name without its .onnx/.yaml/.yml/.npuasm suffix, through npu::safe_file_name(); any
/// other dot stays ("llama-3.2-1b:prefill=3" -> "llama-3.2-1b_prefill_3").
std::string stem_of(const std::string& path_or_name);

/// Throws ConfigError "FLAG 'ITEM': error: given twice (or two arguments share the name 'N');
/// give each once" when two of `items` have one name under `name_of` (stem_of by default):
/// their run folders and summary rows would collide (`npu experiment`, `npu llm`).
void refuse_repeated_names(const std::vector<std::string>& items, const char* flag,
                           const std::function<std::string(const std::string&)>& name_of = stem_of);

}  // namespace npu::sim
