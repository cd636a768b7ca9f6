#include "npu/sim/llm/llm_plan.hpp"
#include "npu/sim/llm/llm_out_folder.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "npu/base/config_error.hpp"
#include "npu/base/files.hpp"
#include "npu/base/safe_file_name.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "npu/isa/cost/kv_cache_width.hpp"

namespace npu::sim {
namespace fs = std::filesystem;

std::vector<std::int64_t> sampled_contexts(std::int64_t prompt, std::int64_t generate, bool every_step, int samples) {
  std::vector<std::int64_t> out;
  if (every_step || generate <= samples || samples < 2) {  // (plan_llm refuses samples < 2 without every_step)
    for (std::int64_t t = prompt + 1; t <= prompt + generate; ++t) out.push_back(t);
    return out;
  }
  for (int k = 0; k < samples; ++k) {
    const auto t = prompt + 1 + std::llround(double(k) * double(generate - 1) / double(samples - 1));
    if (out.empty() || out.back() != t) out.push_back(t);
  }
  return out;
}

namespace {

// Fills prompt, generate and batch from the options and the model's defaults, and checks them.
void resolve_lengths(const LlmOptions& opt, const LlmShape& s, const std::string& model, LlmPlan& plan) {
  if (opt.batch_given && opt.batch < 1)
    throw ConfigError(fmt::format("--batch {}: error: the batch is the number of sequences decoded together and must "
                                  "be at least 1; give e.g. --batch 1",
                                  opt.batch));
  plan.batch = opt.batch_given ? opt.batch : s.fixed_batch.value_or(1);
  if (s.fixed_batch && plan.batch != *s.fixed_batch)
    throw ConfigError(fmt::format("--batch {}: error: the ONNX pair {} was exported at batch {} (fixed shapes); give "
                                  "--batch {} or re-export with export_llm.py --batch {}",
                                  plan.batch, model, *s.fixed_batch, *s.fixed_batch, plan.batch));
  if (opt.prompt_given && opt.prompt < 1)
    throw ConfigError(fmt::format("--prompt {}: error: the prompt is at least 1 token; give e.g. --prompt 128", opt.prompt));
  plan.prompt = opt.prompt_given ? opt.prompt : s.fixed_past.value_or(std::min<std::int64_t>(512, s.max_context - 1));
  if (s.fixed_past && plan.prompt != *s.fixed_past)
    throw ConfigError(fmt::format(
        "--prompt {}: error: the decode export of {} has a past length of {} (its past.* inputs), so its first decode "
        "step follows a prompt of {} tokens; give --prompt {} or re-export the decode phase with export_llm.py "
        "--past {}",
        plan.prompt, model, *s.fixed_past, *s.fixed_past, *s.fixed_past, plan.prompt));
  if (plan.prompt >= s.max_context)
    throw ConfigError(fmt::format("--prompt {}: error: the model's context is {} tokens, so a prompt of {} leaves no "
                                  "room to generate; give --prompt {} or less",
                                  plan.prompt, s.max_context, plan.prompt, s.max_context - 1));
  if (opt.generate_given && opt.generate < 1)
    throw ConfigError(fmt::format("--generate {}: error: generate at least 1 token; give e.g. --generate 32", opt.generate));
  plan.generate = opt.generate_given ? opt.generate : std::min<std::int64_t>(128, s.max_context - plan.prompt);
  if (plan.generate > s.max_context - plan.prompt)  // compared without the sum: a huge G must not wrap
    throw ConfigError(fmt::format(
        "--generate {}: error: prompt {} + generate {} tokens is over the model's context of {}{}; give "
        "--generate {} or less, {}",
        plan.generate, plan.prompt, plan.generate, s.max_context,
        s.fixed_past ? " (the ONNX decode export's fixed present length)" : "", s.max_context - plan.prompt,
        s.fixed_past ? "or re-export the pair with export_llm.py for a longer context (an ONNX pair's prompt and "
                       "context are fixed by its shapes)"
                     : "or a shorter --prompt"));
}

// Throws for option values that would run something other than asked: fewer than 2 samples
// when the `generate` steps would be interpolated (more steps than samples: interpolation needs
// two lengths), fewer than 1 job, a strategy or config given twice, an --out that cannot be
// created.
void check_run_options(const LlmOptions& opt, std::int64_t generate) {
  refuse_repeated_names(opt.strategies, "--strategies", strategy_label);
  refuse_repeated_names(opt.hws, "--hw");
  if (!opt.every_step && opt.samples < 2 && generate > opt.samples)
    throw ConfigError(fmt::format("--samples {}: error: interpolation needs at least 2 sampled decode lengths; give "
                                  "--samples 2 or more, or --every-step to simulate every step",
                                  opt.samples));
  if (opt.jobs < 1)
    throw ConfigError(fmt::format("--jobs {}: error: give at least 1 simulation at a time, e.g. -j 2", opt.jobs));
  refuse_other_tools_folder(opt.out_dir);
  create_output_folder(opt.out_dir);
}

// Throws when the KV cache at the final context does not fit the config's DDR.
void check_kv_fits(const LlmPlan& plan, const LlmShape& s, const std::string& hw_path, const HwConfig& hw) {
  const double kv_bytes = double(s.kv_elements_per_token) * double(plan.prompt + plan.generate) * double(plan.batch) *
                          dtype_bytes(hw.mac_array.dtype);
  const double capacity = double(hw.ddr.capacity_bytes());
  if (kv_bytes > capacity)
    throw ConfigError(fmt::format(
        "{}: error: the KV cache at context {} and batch {} is {:.0f} bytes ({} elements per token, {}), larger than "
        "the config's DDR of {:.0f} bytes (ddr: channels {} x ranks {} x banks {} x rows {} x columns {} x {} bus "
        "bytes); give a smaller --prompt/--generate/--batch or a config with more DDR (ddr.rows, ddr.ranks, "
        "ddr.channels)",
        hw_path, plan.prompt + plan.generate, plan.batch, kv_bytes, s.kv_elements_per_token,
        to_string(hw.mac_array.dtype), capacity, hw.ddr.channels, hw.ddr.ranks,
        hw.ddr.bank_groups * hw.ddr.banks_per_group, hw.ddr.rows, hw.ddr.columns, hw.ddr.bus_width_bits / 8));
}

std::string decode_method_of_lengths(const LlmPlan& plan, const LlmShape& s, bool every_step) {
  if (s.fixed_past)
    return fmt::format("one decode length only: the ONNX decode export has a fixed past length of {}, so context {} "
                       "is the one simulated step",
                       *s.fixed_past, *s.fixed_past + 1);
  if (every_step || plan.decode_contexts.size() == std::size_t(plan.generate)) return "every step simulated";
  return fmt::format("linear interpolation in context length between {} simulated lengths ({}); decode time is affine "
                     "in context to first order (weights constant, KV grows linearly)",
                     plan.decode_contexts.size(), fmt::join(plan.decode_contexts, ", "));
}

// How the decode steps are obtained, and what of the model they leave out: a sliding window
// the final context passes (its steps attend to, and read the KV cache of, every token).
std::string decode_method(const LlmPlan& plan, const LlmShape& s, bool every_step) {
  std::string method = decode_method_of_lengths(plan, s, every_step);
  const std::int64_t last = plan.prompt + plan.generate;
  if (s.sliding_window > 0 && last > s.sliding_window)
    method += fmt::format("; not modelled: the model's sliding window of {} tokens (steps past context {} attend to "
                          "their whole context and read all of its KV cache, more than the model does)",
                          s.sliding_window, s.sliding_window);
  return method;
}

LlmRun make_run(const LlmOptions& opt, const std::string& model, const ModelSource& src, const std::string& hw,
                const std::string& strategy, bool prefill, std::int64_t context) {
  LlmRun r{hw, strategy, prefill, context, {}};
  r.job.model = model;
  r.job.hw = hw;
  r.job.strategy = strategy;
  r.job.id = npu::safe_file_name(src.label()) + "__" + stem_of(hw) + "__" + stem_of(strategy) + "__" +
             (prefill ? fmt::format("prefill{}", context) : fmt::format("decode{}", context));
  r.job.run_dir = (fs::path(opt.out_dir) / "runs" / r.job.id).string();
  return r;
}

}  // namespace

LlmPlan plan_llm(const LlmOptions& opt, const ModelSource& source) {
  const LlmShape& s = source.shape();
  LlmPlan plan;
  resolve_lengths(opt, s, opt.model, plan);
  check_run_options(opt, plan.generate);
  for (const auto& hw : opt.hws) {
    const HwConfig cfg = load_hw_config(hw);
    check_kv_fits(plan, s, hw, cfg);
    // Each decode step appends to the KV cache, which lowering refuses in another width than
    // the array's: refused here, before the prefills run (it came after them).
    if (const std::string why = isa::kv_cache_width_refusal(cfg.mac_array); !why.empty())
      throw ConfigError(fmt::format("{}: error: {} (every decode step appends to it); remove the key or set it to "
                                    "'same'",
                                    hw, why));
  }
  for (const auto& st : opt.strategies) resolve_strategy(st);  // throws for an unknown one
  plan.decode_contexts = s.fixed_past ? std::vector<std::int64_t>{*s.fixed_past + 1}
                                      : sampled_contexts(plan.prompt, plan.generate, opt.every_step, opt.samples);
  plan.decode_method = decode_method(plan, s, opt.every_step);
  for (const auto& hw : opt.hws)
    for (const auto& st : opt.strategies) {
      plan.runs.push_back(make_run(opt, source.prefill_model(plan.prompt, plan.batch), source, hw, st, true,
                                   s.fixed_prefill.value_or(plan.prompt)));
      for (auto t : plan.decode_contexts)
        plan.runs.push_back(make_run(opt, source.decode_model(t, plan.batch), source, hw, st, false, t));
    }
  return plan;
}

}  // namespace npu::sim
