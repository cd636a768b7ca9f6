// `npu llm`'s plan: which prefill and decode simulations to run (one child process each, as
// `npu experiment`), checked before any work starts. docs/llm.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "npu/sim/experiment/experiment.hpp"
#include "npu/sim/llm/model_source.hpp"

namespace npu::sim {

struct LlmOptions {
  std::string model;                    ///< zoo LLM name or PREFILL.onnx,DECODE.onnx
  std::vector<std::string> hws;         ///< hardware config YAMLs
  std::vector<std::string> strategies;  ///< fusion strategies
  std::int64_t prompt = 0;              ///< P (with prompt_given); else the ONNX pair's past length, 512 for a zoo LLM
  std::int64_t generate = 0;            ///< G (with generate_given); else min(128, max context - P)
  bool prompt_given = false, generate_given = false;
  std::int64_t batch = 0;               ///< B; 0 with batch_given false: the export's batch, 1 for a zoo LLM
  bool batch_given = false;
  bool every_step = false;              ///< simulate every decode step (no interpolation)
  int samples = 5;                      ///< sampled decode lengths without every_step (first, last, between)
  std::string out_dir;
  int jobs = 1;
  std::uint64_t max_instructions = 0;  ///< passed to every run (--max-instructions; 0: default)
  bool quiet = false;  ///< no progress line (-q)
  std::string self_exe;                 ///< the npu binary the children run
};

/// One simulated run of the plan.
struct LlmRun {
  std::string hw, strategy;
  bool prefill = false;
  std::int64_t context = 0;  ///< decode: tokens in the cache after the step; prefill: P
  ExperimentJob job;
};

struct LlmPlan {
  std::int64_t prompt = 0, generate = 0, batch = 1;
  std::vector<std::int64_t> decode_contexts;  ///< simulated decode contexts, ascending, in P+1 .. P+G
  std::string decode_method;                  ///< how the other steps are obtained (the report names it)
  std::vector<LlmRun> runs;                   ///< per hw, per strategy: the prefill, then each decode context
};

/// The decode contexts to simulate for steps P+1 .. P+G: all of them when `every_step` or
/// G <= samples, else `samples` lengths evenly spread from P+1 to P+G (first and last
/// included), P+1 + round(k (G-1) / (samples-1)) for k = 0 .. samples-1.
std::vector<std::int64_t> sampled_contexts(std::int64_t prompt, std::int64_t generate, bool every_step, int samples);

/// Resolves the defaults and checks the options against the model and every config. Throws
/// npu::ConfigError naming the value and the fix for: batch < 1, a batch other than an ONNX
/// pair's; a prompt other than the decode export's past length; generate < 1; prompt +
/// generate over the model's context; a KV cache at the final context (2 x layers x kv_heads x
/// head_dim x (P+G) x B elements, the config's mac_array dtype) larger than the config's DDR
/// capacity (channels x ranks x banks x rows x columns x bus bytes); unknown strategies; bad
/// configs.
LlmPlan plan_llm(const LlmOptions& opt, const ModelSource& source);

}  // namespace npu::sim
