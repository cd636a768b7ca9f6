// `npu llm`: time to first token, time per output token, tokens/s and DDR bytes per token of a
// decoder LLM (zoo name or ONNX prefill/decode pair) per hardware config and fusion strategy.
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "command.hpp"
#include "self_exe.hpp"
#include "integer_option.hpp"
#include "npu/base/config_error.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "npu/sim/experiment/child_signals.hpp"
#include "npu/sim/llm/llm_plan.hpp"
#include "npu/sim/llm/llm_run.hpp"

namespace {

// Runs scripts/plot_llm.py on the folder when /usr/bin/python3 has matplotlib, else says how.
void plot(const std::string& out_dir, bool quiet) {
  const std::string script = std::string(NPU_SOURCE_DIR) + "/scripts/plot_llm.py";
  const std::string run = "/usr/bin/python3 '" + script + "' '" + out_dir + "'";
  const bool have = std::system("/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") == 0;
  if (!have) {
    if (!quiet) std::cout << "plots: run " << run << " (needs Debian's python3-matplotlib)\n";
  } else if (std::system((run + " >/dev/null 2>&1").c_str()) == 0) {
    if (!quiet) std::cout << "plots: " << out_dir << "/plots/latency_per_token.png, bytes_per_token.png\n";
  } else {
    std::cerr << "plots: scripts/plot_llm.py failed; run " << run << " to see why\n";
  }
}

void add_llm(CLI::App& app) {
  auto* cmd = app.add_subcommand("llm",
                                 "LLM inference: prefill (time to first token) and decode steps (time per output "
                                 "token, tokens/s, DDR bytes per token) per hw config and fusion strategy");
  auto opt = std::make_shared<npu::sim::LlmOptions>();
  auto strategies = std::make_shared<std::vector<std::string>>();
  cmd->add_option("model", opt->model, "Zoo LLM name (llama-2-7b, ...) or PREFILL.onnx,DECODE.onnx")->required();
  cmd->add_option("--hw", opt->hws, "Hardware config YAML (configs/*.yaml); repeatable")->required();
  // Each at least 1 and within int64 here; the model's context bounds P + G (plan_llm).
  auto* prompt = npu::tool::add_integer_option(cmd, "--prompt", opt->prompt,
                                               "Prompt tokens P (default: an ONNX pair's past length; 512)", 1,
                                               ~0ULL >> 1, "prompt tokens, e.g. --prompt 128");
  auto* generate = npu::tool::add_integer_option(cmd, "--generate", opt->generate,
                                                 "Generated tokens G (default: min(128, max context - P))", 1,
                                                 ~0ULL >> 1, "generated tokens, e.g. --generate 32");
  auto* batch = npu::tool::add_integer_option(cmd, "--batch", opt->batch,
                                              "Sequences decoded together B (default: the export's; 1)", 1,
                                              ~0ULL >> 1, "sequences decoded together, e.g. --batch 1");
  cmd->add_option("--strategies", *strategies, "Comma-separated fusion strategies")->default_str("none,conv-bn-act,transformer");
  cmd->add_option("--out", opt->out_dir, "Output folder (summary.*, llm.*, steps/, runs/)")->default_val("llm-out");
  cmd->add_flag("--every-step", opt->every_step, "Simulate every decode step (default: sampled lengths, interpolated)");
  npu::tool::add_integer_option(cmd, "--samples", opt->samples, "Sampled decode lengths without --every-step", 1,
                                2147483647, "sampled decode lengths")
      ->default_val(5);
  npu::tool::add_jobs_option(cmd, opt->jobs);
  npu::tool::add_max_instructions_option(cmd, opt->max_instructions);
  npu::tool::add_quiet_flag(cmd, opt->quiet);
  cmd->callback([opt, strategies, batch, prompt, generate]() {
    opt->batch_given = batch->count() > 0;
    opt->prompt_given = prompt->count() > 0;
    opt->generate_given = generate->count() > 0;
    opt->strategies = npu::tool::strategy_list(*strategies);
    if (opt->strategies.empty()) opt->strategies = {"none", "conv-bn-act", "transformer"};
    opt->self_exe = npu::tool::self_exe();
    const auto source = npu::sim::open_model_source(opt->model);
    const auto plan = npu::sim::plan_llm(*opt, *source);  // everything checked before any run
    if (!opt->quiet)
      std::cout << "npu llm: " << source->label() << ", prompt " << plan.prompt << ", generate " << plan.generate
                << ", batch " << plan.batch << "; " << plan.runs.size() << " simulations\n";
    if (!opt->quiet && source->shape().fixed_prefill && *source->shape().fixed_prefill != plan.prompt)
      std::cout << "note: the prefill export runs " << *source->shape().fixed_prefill
                << " tokens (fixed shapes); TTFT is for those\n";
    const auto result = npu::sim::run_llm(*opt, *source, plan);
    if (!opt->quiet) {
      std::cout << result.text << "\nwrote " << opt->out_dir << "/summary.csv, summary.json, summary.md, llm.csv, "
                << "llm.json, llm.md" << (result.wrote_steps() ? ", steps/*.csv" : "") << "\n";
      if (result.reused)
        std::cout << "reused " << result.reused << " of " << result.runs << " simulations finished earlier in this "
                  << "folder (same model, config content, strategy and npu build); ran " << result.runs - result.reused
                  << "\n";
    }
    if (result.interrupted_by) {
      std::cerr << "npu llm: interrupted by signal " << result.interrupted_by << ": its simulations were stopped and "
                << "waited for; the hw/strategy pairs they belong to say INTERRUPTED in llm.* (run it again)\n";
      npu::tool::set_exit_status(npu::sim::interrupted_exit_status(result.interrupted_by));
      return;
    }
    if (result.wrote_steps()) plot(opt->out_dir, opt->quiet);
    else if (!opt->quiet) std::cout << "plots: none (no hw/strategy pair has a successful run to plot)\n";
    if (result.failed) {
      std::cerr << "npu llm: " << result.failed << " hw/strategy pair(s) had a failed run; their rows in the table "
                << "and llm.* say FAILED with the reason (logs in " << opt->out_dir << "/runs/<run>/log.txt):\n";
      for (const auto& p : result.failed_pairs) std::cerr << "  " << p << "\n";
      npu::tool::set_exit_status(1);
    }
  });
}

}  // namespace

NPU_COMMAND("llm", add_llm);
