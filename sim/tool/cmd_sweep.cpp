// `npu sweep` (design-space sweeps from a spec) and `npu report` (merge experiment and sweep
// folders into one summary). docs/sweep.md.
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "command.hpp"
#include "self_exe.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "npu/sim/experiment/child_signals.hpp"
#include "npu/sim/experiment/report.hpp"
#include "npu/sim/experiment/sweep.hpp"
#include "npu/sim/experiment/sweep_size.hpp"

namespace {

void add_sweep(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "sweep",
      "Run a design-space sweep from a spec (axes over config keys x models x strategies), one process per cell; "
      "finished cells are kept and skipped on a re-run");
  auto opt = std::make_shared<npu::sim::SweepOptions>();
  cmd->add_option("spec", opt->spec_path, "Sweep spec YAML (docs/sweep.md)")->required();
  cmd->add_option("--out", opt->out_dir, "Sweep folder (plan.json, cells/<key>/, summary.csv/json/md); shards share it")
      ->required();
  npu::tool::add_jobs_option(cmd, opt->jobs);
  cmd->add_option("--shard", opt->shard, "Run only cells with index % N == i (i/N), e.g. for a Slurm job array");
  cmd->add_flag("--retry-failed", opt->retry_failed, "Run cells that failed before again (else they count as done)");
  cmd->add_option("--max-cells", opt->max_cells,
                  "Refuse a sweep of more cells (configs x models x strategies) before planning it")
      ->default_val(npu::sim::kDefaultMaxSweepCells)
      ->check(CLI::Range(std::size_t(1), std::size_t(1) << 40));
  npu::tool::add_quiet_flag(cmd, opt->quiet);
  cmd->callback([opt]() {
    opt->self_exe = npu::tool::self_exe();
    const auto out = npu::sim::run_sweep(*opt);
    if (!opt->quiet)
      std::cout << out.report.table << fmt::format("\nsweep: {} cells planned; this {}: {} cells, {} done before, {} invalid, {} run now, {} "
                             "failed\nwrote {}/summary.csv, summary.json, summary.md (every cell of this spec, all shards)\n",
                             out.planned, opt->shard.empty() ? "run" : "shard " + opt->shard, out.in_shard, out.skipped,
                             out.invalid, out.ran, out.failed, opt->out_dir);
    if (out.stale_cells > 0)
      std::cerr << "npu sweep: note: " << out.stale_cells << " folder(s) in " << opt->out_dir
                << "/cells are no cell of this spec's plan (an earlier spec's, run into this folder): kept on disk, "
                   "but plan.json and the summary are this spec's alone; give each spec its own --out to keep "
                   "both in their summaries\n";
    if (out.interrupted_by) {
      std::cerr << "npu sweep: interrupted by signal " << out.interrupted_by << ": its cells were stopped and waited "
                << "for; the summary lists the unfinished ones as 'missing'. Run the same command again to finish them "
                << "(finished cells are kept)\n";
      npu::tool::set_exit_status(npu::sim::interrupted_exit_status(out.interrupted_by));
    }
    if (const std::string none_ran = npu::sim::all_invalid_error(out, opt->out_dir); !none_ran.empty()) {
      std::cerr << none_ran << "\n";
      npu::tool::set_exit_status(1);
    } else if (out.planned_invalid > 0) {
      // Also under -q (new-user finding: a typo such as 'abc' in an axis gave exit 0 and no word
      // at all; the invalid cells were rows of summary.csv only).
      std::cerr << "npu sweep: warning: " << out.planned_invalid << " of " << out.planned
                << " planned cells are invalid and did not run (status 'invalid' in " << opt->out_dir
                << "/summary.md); the first: " << out.first_invalid << "\n";
    }
    if (out.failed) {
      std::cerr << "npu sweep: " << out.failed << " of " << out.in_shard << " cells failed (status 'failed' in the "
                << "summary; logs in " << opt->out_dir << "/cells/<key>/log.txt)\n";
      npu::tool::set_exit_status(1);
    }
  });
}

void add_report(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "report",
      "Merge experiment and sweep folders (shards, reruns) into one summary; speedups and savings are computed "
      "after the merge; missing, failed and conflicting cells are listed");
  auto dirs = std::make_shared<std::vector<std::string>>();
  auto out = std::make_shared<std::string>();
  cmd->add_option("dirs", *dirs, "Experiment or sweep folders (each with plan.json)")->required();
  cmd->add_option("--out", *out, "Output folder for summary.csv, summary.json, summary.md")->required();
  cmd->callback([dirs, out]() {
    npu::sim::refuse_tool_folder_as_report_out(*out);
    const auto r = npu::sim::write_report(*dirs, *out);
    std::cout << r.table << "wrote " << *out << "/summary.csv, summary.json, summary.md\n";
    if (r.counts.conflicts) npu::tool::set_exit_status(1);
  });
}

}  // namespace

NPU_COMMAND("sweep", add_sweep);
NPU_COMMAND("report", add_report);
