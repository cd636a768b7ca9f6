// Where `npu llm` gets its two phases from: a model source names, for `npu simulate --model`,
// the prefill of P tokens and one decode step at context T, and describes the KV cache's
// shape. Two implementations: an ONNX pair (PREFILL.onnx,DECODE.onnx, fixed shapes) and a
// zoo LLM (NAME -> "NAME:prefill=P:batch=B" / "NAME:decode=T:batch=B"). docs/llm.md.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace npu::sim {

/// The shape facts `npu llm` needs from a model, in elements (the config's dtype gives bytes).
struct LlmShape {
  /// KV-cache elements one token adds per sequence: 2 (K and V) x layers x kv_heads x head_dim.
  std::int64_t kv_elements_per_token = 0;
  /// Largest context (prompt + generated tokens) the model can run.
  std::int64_t max_context = 0;
  std::optional<std::int64_t> fixed_batch;    ///< ONNX pair: the exports' batch
  std::optional<std::int64_t> fixed_prefill;  ///< ONNX pair: the prefill export's tokens
  std::optional<std::int64_t> fixed_past;     ///< ONNX pair: the decode export's past length
  /// The decode graph writes the whole cache as outputs (ONNX `present.*`: the past with the
  /// new token appended, context x batch x kv_elements_per_token elements) rather than the new
  /// rows in place. Used to turn the run's compulsory bytes into the LLM's (weights + KV read
  /// once + new KV written) when the compiler did not make the append in place (a run with
  /// kv_cache traffic already counts the cache once).
  bool decode_writes_whole_cache = false;
  /// The model's published sliding-window attention span in tokens (mistral-7b: 4096); 0 for
  /// none. Not modelled: every step attends to its whole context, which the report says
  /// (decode_method) when the run's context goes past it.
  std::int64_t sliding_window = 0;
};

class ModelSource {
 public:
  virtual ~ModelSource() = default;
  /// File-name-safe label ("gpt2_tiny", "llama-2-7b").
  virtual std::string label() const = 0;
  virtual const LlmShape& shape() const = 0;
  /// The --model string of the prefill of `prompt` tokens at batch `batch`.
  virtual std::string prefill_model(std::int64_t prompt, std::int64_t batch) const = 0;
  /// The --model string of one decode step at context `context` (past context - 1 tokens plus
  /// the new one) at batch `batch`.
  virtual std::string decode_model(std::int64_t context, std::int64_t batch) const = 0;
};

/// Opens MODEL: "PREFILL.onnx,DECODE.onnx" (an ONNX pair) or a zoo LLM name. Throws
/// npu::ConfigError for: a missing or unreadable file, a pair without past.*/present.* KV
/// tensors, a pair whose shared weights differ (onnx_pair_source.cpp), an unknown zoo LLM
/// (with did-you-mean and the list of zoo LLMs).
std::unique_ptr<ModelSource> open_model_source(const std::string& model);

/// The ONNX pair source; throws as open_model_source.
std::unique_ptr<ModelSource> open_onnx_pair(const std::string& prefill_path, const std::string& decode_path);

/// The zoo source; throws ConfigError for an unknown name (did-you-mean).
std::unique_ptr<ModelSource> open_zoo_llm(const std::string& name);

/// The zoo LLM names `npu llm` accepts (issue 26's zoo).
std::vector<std::string> zoo_llm_names();

}  // namespace npu::sim
