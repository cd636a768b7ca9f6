#include "npu/sim/llm/llm_run.hpp"

#include <algorithm>
#include <filesystem>

#include "npu/base/files.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "npu/sim/experiment/cell_plan.hpp"
#include "npu/sim/experiment/cell_resume.hpp"
#include "npu/sim/llm/llm_report.hpp"

namespace npu::sim {
namespace {

// The figures of one hw and strategy from its runs (indices into plan.runs / results).
LlmFigures figures_of(const LlmOptions& opt, const ModelSource& source, const LlmPlan& plan,
                      const std::vector<std::size_t>& idx, int kv_bytes) {
  LlmStep prefill;
  std::vector<LlmStep> simulated;
  for (auto i : idx) {
    const LlmRun& r = plan.runs[i];
    const LlmStep s = read_llm_step(r.job.run_dir, r.context, !r.prefill, source.shape(), plan.batch, kv_bytes);
    if (r.prefill)
      prefill = s;
    else
      simulated.push_back(s);
  }
  const auto steps = fill_steps(simulated, plan.prompt, plan.generate);
  const LlmRun& first = plan.runs[idx.front()];
  write_steps_csv(opt.out_dir, stem_of(first.hw), strategy_label(first.strategy), steps);
  LlmFigures f = summarise_llm(prefill, steps, plan.batch);
  f.model = source.label();
  f.hw = stem_of(first.hw);
  f.strategy = strategy_label(first.strategy);
  f.prompt = plan.prompt;
  f.decode_method = plan.decode_method;
  return f;
}

// The row of a hw and strategy whose run `r` did not finish: names and lengths, status and error,
// no figures (a failed pair never vanishes from llm.*).
LlmFigures failed_figures(const ModelSource& source, const LlmPlan& plan, const LlmRun& run, const RunSummary& r) {
  LlmFigures f;
  f.model = source.label();
  f.hw = stem_of(run.hw);
  f.strategy = strategy_label(run.strategy);
  f.prompt = plan.prompt;
  f.generate = plan.generate;
  f.batch = plan.batch;
  f.decode_method = plan.decode_method;
  f.status = r.interrupted_by ? "interrupted" : "failed";
  f.error = run.job.id + ": " + (r.error.empty() ? f.status : r.error);
  return f;
}

}  // namespace

LlmResult run_llm(const LlmOptions& opt, const ModelSource& source, const LlmPlan& plan) {
  ExperimentOptions eo;
  eo.out_dir = opt.out_dir;
  eo.jobs = opt.jobs;
  eo.max_instructions = opt.max_instructions;
  eo.self_exe = opt.self_exe;
  eo.progress_total = plan.runs.size();
  eo.quiet = opt.quiet;
  std::vector<ExperimentJob> jobs;
  for (const auto& r : plan.runs) jobs.push_back(r.job);
  create_output_folder(opt.out_dir);
  create_output_folder((std::filesystem::path(opt.out_dir) / "runs").string());
  // Steps finished earlier in this folder under the same cell key (model, config content,
  // strategy, tool) are read back, not simulated again (docs/llm.md "Re-running into a folder").
  LlmResult result;
  const auto runs = run_jobs_resumed(eo, plan_job_cells(eo, jobs), jobs, result.reused);
  result.text = write_summary(opt.out_dir, runs) + "\n";
  result.interrupted_by = interruption_of(runs);  // the pairs with a stopped run count as failed
  std::vector<LlmFigures> rows;
  for (std::size_t i = 0; i < plan.runs.size();) {  // runs of one hw and strategy are consecutive
    std::vector<std::size_t> idx;
    std::size_t j = i;
    for (; j < plan.runs.size() && plan.runs[j].hw == plan.runs[i].hw && plan.runs[j].strategy == plan.runs[i].strategy;
         ++j)
      idx.push_back(j);
    const auto bad = std::find_if(idx.begin(), idx.end(), [&](std::size_t k) { return !runs[k].ok; });
    if (bad == idx.end()) {
      rows.push_back(figures_of(opt, source, plan, idx, dtype_bytes(load_hw_config(plan.runs[i].hw).mac_array.dtype)));
    } else {
      rows.push_back(failed_figures(source, plan, plan.runs[*bad], runs[*bad]));
      result.failed += 1;
      result.failed_pairs.push_back(rows.back().hw + " " + rows.back().strategy + " (" + rows.back().error + ")");
    }
    i = j;
  }
  result.pairs = rows.size();
  result.runs = runs.size();
  result.text += write_llm_summary(opt.out_dir, rows);
  return result;
}

}  // namespace npu::sim
