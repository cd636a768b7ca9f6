// `npu experiment`: compare fusion strategies on models x hardware configs.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>

#include "command.hpp"
#include "integer_option.hpp"
#include "self_exe.hpp"
#include "npu/compiler/frontend/zoo/zoo.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "npu/sim/experiment/cell_plan.hpp"
#include "npu/sim/experiment/cell_resume.hpp"
#include "npu/sim/experiment/child_signals.hpp"
#include "npu/sim/experiment/experiment.hpp"
#include "npu/sim/experiment/experiment_folder.hpp"
#include "npu/sim/verify/experiment_verify.hpp"

namespace {

// Adds the options that fill `opt` (models, configs, strategies, output, runs, traces, shapes).
void add_run_options(CLI::App* cmd, npu::sim::ExperimentOptions& opt, std::vector<std::string>& strategies,
                     std::vector<std::string>& traces) {
  cmd->add_option("--model", opt.models, "Zoo name (resnet50, resnet18, mobilenet_v2, yolov5s; LLMs gpt2, gpt2-medium, llama-3.2-1b, llama-2-7b, llama-3-8b, mistral-7b as NAME[:prefill=P|:decode=T][:batch=B], bare NAME = prefill=128) or .onnx path; repeatable")
      ->required();
  cmd->add_option("--hw", opt.hws, "Hardware config YAML (configs/*.yaml); repeatable")->required();
  cmd->add_option("--strategies", strategies,
                  "Comma-separated fusion strategies (built-in names or strategy YAML files)")
      ->default_str("none,conv-bn,conv-act,conv-bn-act,residual,depth-first,transformer");
  cmd->add_option("--out", opt.out_dir, "Output folder (summary.csv/json/md, layers/, runs/)")->required();
  npu::tool::add_jobs_option(cmd, opt.jobs);
  cmd->add_option("--trace", traces, "Traces per run: comma-separated subset of ddr,timeline,vcd");
  cmd->add_flag("--trace-compress", opt.trace_compress,
                "With --trace ddr: write each run's CSV trace gzip-compressed as ddr.csv.gz");
  cmd->add_flag("--npu-only", opt.npu_only, "Fail every run that would place a node on the host");
  cmd->add_option("--input-shape", opt.input_shapes,
                  "Fix a graph input shape for every model: NAME=1x3x224x224 (repeatable)");
  npu::tool::add_dynamic_size_option(cmd, opt.dynamic_size);
  npu::tool::add_dropout_option(cmd, opt.dropout_as_identity);
  npu::tool::add_max_instructions_option(cmd, opt.max_instructions);
  npu::tool::add_quiet_flag(cmd, opt.quiet);
}

// Adds --verify and the calibration options of its int8 check.
void add_verify_options(CLI::App* cmd, bool& verify, npu::sim::VerifyOptions& vo) {
  cmd->add_flag("--verify", verify,
                "Also check values (npu verify): fp32 configs run with data against the fp32 reference, int8 configs "
                "report the post-training-quantised model's SQNR; adds columns to the summary");
  cmd->add_option("--calib", vo.calib_dir, "With --verify, int8 configs: calibration folder (docs/functional.md)");
  npu::tool::add_integer_option(cmd, "--calib-count", vo.calib_count,
                                "With --verify, int8, no --calib: seeded calibration samples", 1, 2147483647,
                                "seeded calibration samples")
      ->default_val(8);
  npu::tool::add_integer_option(cmd, "--calib-seed", vo.calib_seed, "With --verify, int8, no --calib: their seed", 0,
                                ~0ULL, "seed of the calibration samples")
      ->default_val(1);
}

// Completes `opt` from the parsed lists and checks everything before any work starts.
void finish_options(npu::sim::ExperimentOptions& opt, const std::vector<std::string>& strategies,
                    const std::vector<std::string>& traces, bool verify, const npu::sim::VerifyOptions& vo) {
  opt.strategies = npu::tool::strategy_list(strategies);
  if (opt.strategies.empty()) opt.strategies = npu::compiler::builtin_strategy_names();  // all six built-ins
  opt.traces = npu::tool::trace_list(traces);
  opt.self_exe = npu::tool::self_exe();
  opt.with_data = verify;  // children on fp32 configs run with data (seed 1, as the reference's inputs)
  if (!verify && !vo.calib_dir.empty())
    throw npu::ConfigError("--calib: error: it calibrates the quantised model of --verify; add --verify");
  for (const std::string& m : opt.models)  // refused before any run, not one "not run" row each (new-user finding)
    if (verify && npu::compiler::zoo_canonical_name(m))
      throw npu::ConfigError("--verify: error: --model '" + m + "' is a built-in model, which carries shapes only: "
                             "the reference interpreter needs its weights\n  fix: give its .onnx file (torchvision "
                             "CNNs: ../shared/models/export_torchvision.py; LLMs: ../shared/models/llm/export_llm.py) "
                             "or drop --verify");
  npu::sim::validate_experiment(opt);  // everything checked before any work starts
  if (std::find(opt.traces.begin(), opt.traces.end(), "ddr") != opt.traces.end() && !opt.trace_compress && !opt.quiet)
    std::cerr << "note: --trace ddr writes one CSV row per DDR burst per run (MobileNetV2 under none on the edge "
                 "preset: 109 MB of ddr.csv + 16 MB of ddr.trace; a run above 100 MB says so in its log.txt); "
                 "--trace-compress writes ddr.csv.gz (8.4 MB there)\n";
}

// The folder's plan.json of an earlier experiment, if it has a readable one.
std::optional<npu::sim::Plan> earlier_experiment_plan(const std::string& dir) {
  if (!std::filesystem::exists(std::filesystem::path(dir) / "plan.json")) return std::nullopt;
  try {
    npu::sim::Plan p = npu::sim::read_plan(dir);
    if (p.kind == "experiment") return p;
  } catch (const std::exception&) {  // unreadable: the kept rows are planned again
  }
  return std::nullopt;
}

// Prints what merging with the folder's earlier runs kept, dropped and removed, if anything.
void print_merge(const npu::sim::MergeReport& merge) {
  if (merge.kept_earlier || merge.dropped_earlier || merge.removed_stale || merge.removed_plots)
    std::cout << "folder: kept " << merge.kept_earlier << " earlier row(s) whose results are still in runs/, dropped "
              << merge.dropped_earlier << " whose results are gone or failed, removed " << merge.removed_stale
              << " stale run folder(s)/layer file(s)"
              << (merge.removed_plots ? " and " + std::to_string(merge.removed_plots) +
                                            " plot(s) of the previous summary (re-run scripts/plot_experiment.py)"
                                      : std::string())
              << "\n";
}

// Prints what an interrupted experiment left and sets the exit status 128 + signal.
void report_interruption(const std::vector<npu::sim::RunSummary>& runs, int sig) {
  std::size_t finished = 0;
  for (const auto& r : runs) finished += r.interrupted_by ? 0 : 1;
  std::cerr << "npu experiment: interrupted by signal " << sig << ": its runs were stopped and waited for; "
            << finished << " of " << runs.size() << " runs finished (summary marked INCOMPLETE; verification "
            << "skipped). Run the same command again to finish: finished runs are reused\n";
  npu::tool::set_exit_status(npu::sim::interrupted_exit_status(sig));
}

// Runs the experiment of `opt` (and --verify's checks), writes the summary and sets the exit
// status 1 when a run or a verification failed (128 + signal when interrupted).
void run_command(const npu::sim::ExperimentOptions& opt, bool verify, npu::sim::VerifyOptions& vo) {
  const npu::sim::FolderLock lock(opt.out_dir);  // one experiment per folder at a time
  const std::optional<npu::sim::Plan> earlier_plan = earlier_experiment_plan(opt.out_dir);
  const npu::sim::Plan plan = npu::sim::plan_experiment_cells(opt);
  npu::sim::write_plan(opt.out_dir, plan);  // for `npu report`
  std::size_t reused = 0;
  const auto fresh = npu::sim::run_experiment_resumed(opt, plan, reused);
  const int interrupted = npu::sim::interruption_of(fresh);
  npu::sim::MergeReport merge;
  auto runs = npu::sim::merge_with_earlier_runs(opt.out_dir, fresh, merge);
  if (merge.kept_earlier)  // the plan lists every row the summary keeps
    npu::sim::write_plan(opt.out_dir, npu::sim::plan_with_earlier_rows(
                                          plan, earlier_plan ? &*earlier_plan : nullptr, runs, opt));
  int verify_failed = 0;
  if (verify && !interrupted) {
    vo.input_shapes = opt.input_shapes;
    vo.dropout_as_identity = opt.dropout_as_identity;
    vo.input_seed = opt.input_seed;
    verify_failed = npu::sim::add_verify_figures(runs, vo);
  }
  const std::string table = npu::sim::write_summary(opt.out_dir, runs);
  std::size_t failed = 0;
  for (const auto& r : runs) failed += r.ok || r.interrupted_by ? 0 : 1;
  if (!opt.quiet) {
    std::cout << table << "\nwrote " << opt.out_dir << "/summary.csv, summary.json, summary.md, layers/*.csv\n";
    if (reused)
      std::cout << "reused " << reused << " of " << fresh.size() << " runs finished earlier in this folder (same "
                << "model, config content, strategy, options and npu build); ran " << fresh.size() - reused << "\n";
    print_merge(merge);
  }
  if (!opt.shard.empty() && fresh.empty())  // a Slurm array wider than the experiment: say so, not just an empty table
    std::cerr << "npu experiment: shard " << opt.shard << " holds none of the " << plan.cells.size()
              << " run(s) (run k goes to shard k mod N, counting from 0): nothing ran in this shard"
              << (runs.empty() ? "; the table is empty" : "; the table holds runs finished earlier in this folder")
              << "\n";
  if (interrupted) report_interruption(fresh, interrupted);
  if (verify_failed) {
    std::cerr << "npu experiment: " << verify_failed
              << " run(s) failed verification: not run (the table says why), above the fp32 tolerance "
              << vo.fp32_tolerance << ", or int8 not bit-exact with the integer reference (see the verification "
                 "table)\n";
    npu::tool::set_exit_status(1);
  }
  if (failed) {
    std::cerr << "npu experiment: " << failed << " of " << runs.size() << " runs failed (see the table; logs in "
              << opt.out_dir << "/runs/<run>/log.txt)\n";
    npu::tool::set_exit_status(1);
  }
}

void add_experiment(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "experiment",
      "Compile and simulate every model x hw config x fusion strategy (one process per run) and compare "
      "DDR traffic and latency");
  auto opt = std::make_shared<npu::sim::ExperimentOptions>();
  auto strategies = std::make_shared<std::vector<std::string>>();
  auto traces = std::make_shared<std::vector<std::string>>();
  add_run_options(cmd, *opt, *strategies, *traces);
  auto verify = std::make_shared<bool>(false);
  auto vo = std::make_shared<npu::sim::VerifyOptions>();
  add_verify_options(cmd, *verify, *vo);
  cmd->add_option("--shard", opt->shard, "Run only share i of N of the jobs (i/N), e.g. for a Slurm job array");
  cmd->callback([opt, strategies, traces, verify, vo]() {
    finish_options(*opt, *strategies, *traces, *verify, *vo);
    run_command(*opt, *verify, *vo);
  });
}

}  // namespace

NPU_COMMAND("experiment", add_experiment);
