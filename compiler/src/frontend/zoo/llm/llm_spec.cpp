// The zoo LLMs' published configurations (llm_spec.hpp). Every value is from the
// config.json of the public Hugging Face checkpoint named in `source`; where config.json
// leaves a value to the model code, the code's default is cited.
#include "npu/compiler/frontend/zoo/llm/llm_spec.hpp"

namespace npu::compiler {

namespace {

/// The fields every family sets: name, source, layers, d_model, heads (head_dim = d / heads).
LlmSpec base(std::string name, std::string source, std::int64_t layers, std::int64_t d, std::int64_t heads) {
  LlmSpec s;
  s.name = std::move(name);
  s.source = std::move(source);
  s.layers = layers;
  s.d_model = d;
  s.heads = heads;
  s.head_dim = d / heads;
  return s;
}

/// GPT-2 family (transformers GPT2Config / GPT2LMHeadModel): LayerNorm with bias
/// (layer_norm_epsilon 1e-5), learned positions (wpe), fused QKV c_attn with biases,
/// activation_function "gelu_new" (= tanh GELU), n_inner null -> 4 * n_embd, head tied to wte.
LlmSpec gpt2(std::string name, std::string source, std::int64_t layers, std::int64_t d,
             std::int64_t heads) {
  LlmSpec s = base(std::move(name), std::move(source), layers, d, heads);
  s.kv_heads = heads;
  s.ffn = 4 * d;
  s.vocab = 50257;
  s.max_context = 1024;
  s.norm = LlmNorm::LayerNorm;
  s.mlp = LlmMlp::GeluTanh;
  s.positions = LlmPositions::Learned;
  s.tied_head = true;
  s.biases = true;
  return s;
}

/// Llama family (transformers LlamaConfig / MistralConfig): RMSNorm (rms_norm_eps 1e-5 for
/// every zoo model), rotary positions (rope_theta), SwiGLU MLP (hidden_act "silu"), no biases
/// (attention_bias false, mlp_bias false), head_dim = hidden_size / num_attention_heads.
LlmSpec llama(std::string name, std::string source, std::int64_t layers, std::int64_t d,
              std::int64_t heads, std::int64_t kv_heads, std::int64_t ffn, std::int64_t vocab,
              std::int64_t max_context, double theta, bool tied) {
  LlmSpec s = base(std::move(name), std::move(source), layers, d, heads);
  s.kv_heads = kv_heads;
  s.ffn = ffn;
  s.vocab = vocab;
  s.max_context = max_context;
  s.norm = LlmNorm::RmsNorm;
  s.mlp = LlmMlp::SwiGlu;
  s.positions = LlmPositions::Rope;
  s.rope_theta = theta;
  s.tied_head = tied;
  s.biases = false;
  return s;
}

std::vector<LlmSpec> make_specs() {
  std::vector<LlmSpec> v;
  // openai-community/gpt2 config.json: n_embd 768, n_layer 12, n_head 12, n_positions 1024,
  // vocab_size 50257, n_inner null, activation_function "gelu_new", layer_norm_epsilon 1e-05.
  v.push_back(gpt2("gpt2", "openai-community/gpt2", 12, 768, 12));
  // openai-community/gpt2-medium config.json: n_embd 1024, n_layer 24, n_head 16,
  // n_positions 1024, vocab_size 50257 (other keys as gpt2).
  v.push_back(gpt2("gpt2-medium", "openai-community/gpt2-medium", 24, 1024, 16));
  // meta-llama/Llama-3.2-1B config.json: hidden_size 2048, intermediate_size 8192,
  // num_hidden_layers 16, num_attention_heads 32, num_key_value_heads 8, head_dim 64,
  // max_position_embeddings 131072, rope_theta 500000.0 (rope_scaling "llama3": changes the
  // table's values, not its shape; not modelled), rms_norm_eps 1e-05, vocab_size 128256,
  // tie_word_embeddings true.
  v.push_back(llama("llama-3.2-1b", "meta-llama/Llama-3.2-1B", 16, 2048, 32, 8, 8192, 128256, 131072,
                    500000.0, true));
  // meta-llama/Llama-2-7b-hf config.json: hidden_size 4096, intermediate_size 11008,
  // num_hidden_layers 32, num_attention_heads 32, num_key_value_heads 32,
  // max_position_embeddings 4096, rms_norm_eps 1e-05, vocab_size 32000, tie_word_embeddings
  // false, rope_theta absent (LlamaConfig default 10000.0).
  v.push_back(llama("llama-2-7b", "meta-llama/Llama-2-7b-hf", 32, 4096, 32, 32, 11008, 32000, 4096,
                    10000.0, false));
  // meta-llama/Meta-Llama-3-8B config.json: hidden_size 4096, intermediate_size 14336,
  // num_hidden_layers 32, num_attention_heads 32, num_key_value_heads 8,
  // max_position_embeddings 8192, rope_theta 500000.0, rms_norm_eps 1e-05, vocab_size 128256,
  // tie_word_embeddings false.
  v.push_back(llama("llama-3-8b", "meta-llama/Meta-Llama-3-8B", 32, 4096, 32, 8, 14336, 128256, 8192,
                    500000.0, false));
  // mistralai/Mistral-7B-v0.1 config.json: hidden_size 4096, intermediate_size 14336,
  // num_hidden_layers 32, num_attention_heads 32, num_key_value_heads 8,
  // max_position_embeddings 32768, rope_theta 10000.0, rms_norm_eps 1e-05, vocab_size 32000,
  // tie_word_embeddings false, sliding_window 4096 (recorded, not modelled: the graphs attend
  // to all T cached tokens, so decode beyond 4096 reads more KV cache than Mistral does).
  v.push_back(llama("mistral-7b", "mistralai/Mistral-7B-v0.1", 32, 4096, 32, 8, 14336, 32000, 32768,
                    10000.0, false));
  v.back().sliding_window = 4096;
  return v;
}

}  // namespace

const std::vector<LlmSpec>& llm_specs() {
  static const std::vector<LlmSpec> kSpecs = make_specs();
  return kSpecs;
}

const std::vector<std::string>& llm_model_names() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> v;
    for (const LlmSpec& s : llm_specs()) v.push_back(s.name);
    return v;
  }();
  return kNames;
}

const LlmSpec* find_llm_spec(const std::string& name) {
  for (const LlmSpec& s : llm_specs())
    if (s.name == name) return &s;
  return nullptr;
}

std::int64_t parameter_count(const LlmSpec& s) {
  const std::int64_t d = s.d_model, q = s.heads * s.head_dim, kv = s.kv_heads * s.head_dim;
  const bool ln = s.norm == LlmNorm::LayerNorm;
  std::int64_t layer = 2 * (ln ? 2 * d : d);                 // two norms
  layer += d * q + 2 * d * kv + q * d;                        // Q, K, V, output projections
  if (s.biases) layer += q + 2 * kv + d;
  if (s.mlp == LlmMlp::GeluTanh)
    layer += 2 * d * s.ffn + (s.biases ? s.ffn + d : 0);      // fc, proj
  else
    layer += 3 * d * s.ffn + (s.biases ? 2 * s.ffn + d : 0);  // gate, up, down
  std::int64_t total = s.vocab * d + s.layers * layer + (ln ? 2 * d : d);
  if (s.positions == LlmPositions::Learned) total += s.max_context * d;
  if (!s.tied_head) total += s.vocab * d;
  return total;
}

}  // namespace npu::compiler
