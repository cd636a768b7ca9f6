// Model names of the zoo LLMs on the command line (`--model`, `npu compile MODEL`):
//
//   NAME[:prefill=P | :decode=T][:batch=B]
//
// NAME is a zoo LLM (llm_model_names()). Bare NAME is prefill=128, batch 1 (P clipped to the
// model's context when that is shorter: never the case for the zoo). Keys may come in any
// order, each once; prefill and decode exclude each other. Examples: gpt2,
// llama-2-7b:decode=2048, llama-3-8b:prefill=512:batch=4.
#pragma once

#include <optional>
#include <string>

#include "npu/compiler/frontend/zoo/llm/llm_graph.hpp"

namespace npu::compiler {

/// A parsed LLM model name: which model and which graph of it.
struct LlmRequest {
  const LlmSpec* spec = nullptr;
  LlmShape shape;
};

/// Prompt length of a bare NAME.
constexpr std::int64_t kDefaultPrefillTokens = 128;

/// Largest batch= accepted (keeps element counts of logits [B, P, V] far inside 64 bits).
constexpr std::int64_t kMaxLlmBatch = 1 << 20;

/// Parses `text`. Returns nullopt when it is not an LLM name (no ':' and NAME is not a zoo
/// LLM: a CNN zoo name or a path). Throws npu::ConfigError naming the value and the fix for:
/// an unknown NAME before ':' (with "did you mean" and the list), a malformed or repeated
/// key=value, an unknown key, prefill together with decode, P or T outside 1..max context
/// (decode needs T >= 2: at T = 1 the cache is empty, the token is a prefill), batch 0 or
/// over kMaxLlmBatch.
std::optional<LlmRequest> parse_llm_model_name(const std::string& text);

/// The canonical text of `request`: "NAME:prefill=P:batch=B" or "NAME:decode=T:batch=B".
std::string llm_model_name(const LlmRequest& request);

}  // namespace npu::compiler
