// Decoder-only LLMs of the built-in zoo, described by the values of their published
// configurations (Hugging Face config.json of the public checkpoints; sources beside each
// entry in llm_spec.cpp). No weights: the zoo builds graphs whose weights have shapes only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace npu::compiler {

enum class LlmNorm { LayerNorm, RmsNorm };        ///< LayerNorm with weight and bias / RMSNorm with weight
enum class LlmMlp { GeluTanh, SwiGlu };           ///< 2-matrix fc -> GELU(tanh) -> proj / 3-matrix down(silu(gate) * up)
enum class LlmPositions { Learned, Rope };        ///< learned position table (wpe) / rotary embedding

/// One decoder-only transformer configuration.
struct LlmSpec {
  std::string name;              ///< zoo name, e.g. "llama-2-7b"
  std::string source;            ///< checkpoint whose config.json gave the values
  std::int64_t layers = 0;
  std::int64_t d_model = 0;      ///< hidden size
  std::int64_t heads = 0;        ///< query heads
  std::int64_t kv_heads = 0;     ///< key/value heads (< heads: grouped-query attention)
  std::int64_t head_dim = 0;     ///< per head; heads * head_dim == d_model for every zoo model
  std::int64_t ffn = 0;          ///< MLP intermediate size
  std::int64_t vocab = 0;
  std::int64_t max_context = 0;  ///< n_positions / max_position_embeddings, in tokens
  LlmNorm norm = LlmNorm::LayerNorm;
  float norm_epsilon = 1e-5f;
  LlmMlp mlp = LlmMlp::GeluTanh;
  LlmPositions positions = LlmPositions::Learned;
  double rope_theta = 0;         ///< rotary base (Rope only)
  bool tied_head = false;        ///< LM head shares the token-embedding matrix
  bool biases = false;           ///< projections (QKV, output, MLP) carry biases
  std::int64_t sliding_window = 0;  ///< published sliding-window attention span; 0 = none. Not modelled:
                                    ///< the zoo graphs attend to every cached token
};

/// The zoo LLMs, in the order of the docs' table: gpt2, gpt2-medium, llama-3.2-1b,
/// llama-2-7b, llama-3-8b, mistral-7b.
const std::vector<LlmSpec>& llm_specs();

/// Names of llm_specs(), same order.
const std::vector<std::string>& llm_model_names();

/// The spec called `name`, or nullptr.
const LlmSpec* find_llm_spec(const std::string& name);

/// Number of parameters (weights and biases, each shared tensor once) of `spec`:
///   embeddings   V*d (token) + [Learned] max_context*d (positions)
///   per layer    norms 2*(d [+ d bias for LayerNorm])
///                attention d*(H*hd) + 2*d*(Hkv*hd) + (H*hd)*d  [+ biases H*hd + 2*Hkv*hd + d]
///                MLP GeluTanh d*ffn + ffn*d [+ ffn + d];  SwiGlu 3*d*ffn [+ 2*ffn + d]
///   final norm   d [+ d]
///   LM head      V*d unless tied_head (then the token embedding serves)
/// with d = d_model, H = heads, Hkv = kv_heads, hd = head_dim, V = vocab. This is the count
/// of the Hugging Face model (model.num_parameters()), which counts a tied matrix once.
std::int64_t parameter_count(const LlmSpec& spec);

}  // namespace npu::compiler
