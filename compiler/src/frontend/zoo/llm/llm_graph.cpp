// Zoo LLM graphs for prefill and decode (llm_graph.hpp): the op structure of export_llm.py's
// torch.onnx exports, built node by node with the zoo builder and canonical forms.
#include "npu/compiler/frontend/zoo/llm/llm_graph.hpp"

#include <cmath>
#include <limits>
#include <map>

#include "frontend/zoo/zoo_builder.hpp"
#include "npu/compiler/transforms/pass_manager.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace npu::compiler {

namespace {

using zoo_detail::scope_of;
using zoo_detail::ZooBuilder;
using Dims = std::vector<std::int64_t>;

/// Builder state for one graph: the spec, the phase's sizes and the exporter's numbering of
/// repeated ops inside a scope ("/blocks.0/Transpose", "/blocks.0/Transpose_1", ...).
class LlmBuilder {
 public:
  LlmBuilder(const LlmSpec& spec, const LlmShape& shape)
      : b(spec.name), s(spec), batch(shape.batch),
        new_tokens(shape.phase == LlmPhase::Prefill ? shape.tokens : 1),
        context(shape.tokens), decode(shape.phase == LlmPhase::Decode) {}

  ZooBuilder b;
  const LlmSpec& s;
  const std::int64_t batch, new_tokens, context;  ///< B, S (tokens this step), attended tokens
  const bool decode;
  std::vector<std::string> outputs;                ///< graph outputs in export order
  std::map<std::string, std::string> renames;      ///< node output -> graph output name

  /// "<scope>/<op>", then "<scope>/<op>_1", ... on later calls with the same scope and op.
  std::string node(const std::string& scope, const std::string& op) {
    const int k = count_[scope + "/" + op]++;
    return scope + "/" + op + (k ? "_" + std::to_string(k) : "");
  }
  std::string ints(const std::string& name, Dims values) {
    return b.constant_ints(name, {std::int64_t(values.size())}, values);
  }
  std::string scalar(const std::string& name, float v) { return b.constant(name, {}, {v}); }
  /// The prefill's causal mask [S, S] (0 on and below the diagonal, -inf above), made once and
  /// shared by the layers. Its values let fuse-attention prove it causal and skip the blocks
  /// past the diagonal; past kCausalMaskMaxTokens (64 MB of values) it is a weight without
  /// values, which fuse-attention reads as a general mask (every block reads its tile).
  std::string causal_mask() {
    constexpr std::int64_t kCausalMaskMaxTokens = 4096;
    const std::string name = "attn.causal_mask";
    if (mask_made_) return name;
    mask_made_ = true;
    const std::int64_t n = new_tokens;
    if (n > kCausalMaskMaxTokens) return b.weight(name, {n, n});
    std::vector<float> v(std::size_t(n * n), 0.0f);
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = i + 1; j < n; ++j) v[std::size_t(i * n + j)] = -std::numeric_limits<float>::infinity();
    return b.constant(name, {n, n}, std::move(v));
  }

  std::string reshape(const std::string& scope, const std::string& x, Dims shape) {
    const std::string n = node(scope, "Reshape");
    return b.add1("Reshape", n, {x, ints(n + ".shape", std::move(shape))});
  }
  std::string transpose(const std::string& scope, const std::string& x, Dims perm) {
    return b.add1("Transpose", node(scope, "Transpose"), {x}, {{"perm", std::move(perm)}});
  }
  std::string binary(const std::string& scope, const std::string& op, const std::string& x,
                     const std::string& y) {
    return b.add1(op, node(scope, op), {x, y});
  }
  /// An op with no shape-inference rule whose output has the shape of input `like`.
  std::string same_shape(const std::string& scope, const std::string& op, std::vector<std::string> ins,
                         std::map<std::string, AttrValue> attrs = {}, std::size_t like = 0) {
    const Dims shape = b.shape(ins.at(like));
    return b.add_shaped(op, node(scope, op), std::move(ins), std::move(attrs), shape);
  }

  /// nn.Linear `module` as exported: MatMul with weight [in, out] (+ Add bias [out]).
  std::string linear(const std::string& module, const std::string& x, std::int64_t out) {
    const std::string sc = scope_of(module);
    const std::int64_t in = b.shape(x).back();
    std::string y = b.add1("MatMul", node(sc, "MatMul"), {x, b.weight(module + ".weight", {in, out})});
    if (s.biases) y = b.add1("Add", node(sc, "Add"), {y, b.weight(module + ".bias", {out})});
    return y;
  }

 private:
  std::map<std::string, int> count_;
  bool mask_made_ = false;
};

std::string layer_norm(LlmBuilder& m, const std::string& module, const std::string& x) {
  const std::int64_t d = m.b.shape(x).back();
  return m.b.add_shaped("LayerNormalization", m.node(scope_of(module), "LayerNormalization"),
                        {x, m.b.weight(module + ".weight", {d}), m.b.weight(module + ".bias", {d})},
                        {{"axis", std::int64_t{-1}}, {"epsilon", m.s.norm_epsilon}}, m.b.shape(x));
}

/// x * rsqrt(mean(x^2) + eps) * weight, as torch exports it (README of the shared exports).
std::string rms_norm(LlmBuilder& m, const std::string& module, const std::string& x) {
  const std::string sc = scope_of(module);
  const std::int64_t d = m.b.shape(x).back();
  const std::string sq = m.binary(sc, "Pow", x, m.scalar(module + ".two", 2.0f));
  Dims reduced = m.b.shape(x);
  reduced.back() = 1;
  const std::string mean = m.b.add_shaped("ReduceMean", m.node(sc, "ReduceMean"), {sq},
                                          {{"axes", Dims{-1}}, {"keepdims", std::int64_t{1}}}, reduced);
  const std::string var = m.binary(sc, "Add", mean, m.scalar(module + ".eps", m.s.norm_epsilon));
  const std::string rms = m.same_shape(sc, "Sqrt", {var});
  const std::string inv = m.same_shape(sc, "Div", {m.scalar(module + ".one", 1.0f), rms}, {}, 1);
  const std::string y = m.binary(sc, "Mul", x, inv);
  return m.binary(sc, "Mul", y, m.b.weight(module + ".weight", {d}));
}

std::string norm(LlmBuilder& m, const std::string& module, const std::string& x) {
  return m.s.norm == LlmNorm::LayerNorm ? layer_norm(m, module, x) : rms_norm(m, module, x);
}

/// [B, S, n*hd] -> [B, n, S, hd].
std::string split_heads(LlmBuilder& m, const std::string& sc, const std::string& x, std::int64_t n) {
  const std::string r = m.reshape(sc, x, {m.batch, m.new_tokens, n, m.s.head_dim});
  return m.transpose(sc, r, {0, 2, 1, 3});
}

/// x * cos + rotate_half(x) * sin, rotate_half(x) = concat(-x[..., hd/2:], x[..., :hd/2]).
std::string rope(LlmBuilder& m, const std::string& sc, const std::string& x) {
  const std::int64_t hd = m.s.head_dim, half = hd / 2;
  const Dims table{1, 1, m.new_tokens, hd};
  const std::string cos = m.b.weight("rope.cos", table), sin = m.b.weight("rope.sin", table);
  const std::string xc = m.binary(sc, "Mul", x, cos);
  Dims half_shape = m.b.shape(x);
  half_shape.back() = half;
  auto slice = [&](std::int64_t from, std::int64_t to) {
    const std::string n = m.node(sc, "Slice");
    return m.b.add_shaped("Slice", n,
                          {x, m.ints(n + ".starts", {from}), m.ints(n + ".ends", {to}), m.ints(n + ".axes", {3})},
                          {}, half_shape);
  };
  const std::string hi = m.same_shape(sc, "Neg", {slice(half, hd)});
  const std::string rot = m.b.add1("Concat", m.node(sc, "Concat"), {hi, slice(0, half)}, {{"axis", std::int64_t{-1}}});
  return m.binary(sc, "Add", xc, m.binary(sc, "Mul", rot, sin));
}

/// Grouped-query attention: [B, Hkv, T, hd] -> [B, H, T, hd], each KV head repeated H/Hkv
/// times (Unsqueeze, Expand, Reshape as the export writes k[:, :, None].expand().reshape()).
std::string repeat_kv(LlmBuilder& m, const std::string& sc, const std::string& x) {
  if (m.s.kv_heads == m.s.heads) return x;
  const Dims xs = m.b.shape(x);
  const std::int64_t rep = m.s.heads / m.s.kv_heads;
  const std::string un = m.node(sc, "Unsqueeze");
  const std::string u = m.b.add_shaped("Unsqueeze", un, {x, m.ints(un + ".axes", {2})}, {},
                                       {xs[0], xs[1], 1, xs[2], xs[3]});
  const std::string en = m.node(sc, "Expand");
  const Dims expanded{xs[0], xs[1], rep, xs[2], xs[3]};
  const std::string e = m.b.add_shaped("Expand", en, {u, m.ints(en + ".shape", expanded)}, {}, expanded);
  return m.reshape(sc, e, {xs[0], m.s.heads, xs[2], xs[3]});
}

/// Appends the new K or V to the cache (decode) and records it as graph output present.L.kind.
std::string cache(LlmBuilder& m, const std::string& sc, std::int64_t layer, const std::string& kind,
                  const std::string& x) {
  const std::string name = "." + std::to_string(layer) + "." + kind;
  std::string full = x;
  if (m.decode) {
    const std::string past = m.b.input("past" + name, {m.batch, m.s.kv_heads, m.context - 1, m.s.head_dim});
    full = m.b.add1("Concat", m.node(sc, "Concat"), {past, x}, {{"axis", std::int64_t{2}}});
  }
  m.renames[full] = "present" + name;
  m.outputs.push_back("present" + name);
  return full;
}

/// softmax(q k^T / sqrt(hd) [+ causal mask]) v, heads merged back: [B, S, H*hd].
std::string attention(LlmBuilder& m, const std::string& sc, std::int64_t layer, const std::string& q,
                      const std::string& k_new, const std::string& v_new) {
  const std::string k = repeat_kv(m, sc, cache(m, sc, layer, "key", k_new));
  const std::string v = repeat_kv(m, sc, cache(m, sc, layer, "value", v_new));
  const std::string kt = m.transpose(sc, k, {0, 1, 3, 2});
  std::string scores = m.binary(sc, "MatMul", q, kt);
  const float scale = float(std::sqrt(double(m.s.head_dim)));
  scores = m.same_shape(sc, "Div", {scores, m.scalar(sc + "/Div.scale", scale)});
  if (!m.decode)  // causal: -inf above the diagonal (constant [S, S], shared by the layers)
    scores = m.binary(sc, "Add", scores, m.causal_mask());
  const std::string p = m.b.add1("Softmax", m.node(sc, "Softmax"), {scores}, {{"axis", std::int64_t{-1}}});
  const std::string o = m.transpose(sc, m.binary(sc, "MatMul", p, v), {0, 2, 1, 3});
  return m.reshape(sc, o, {m.batch, m.new_tokens, m.s.heads * m.s.head_dim});
}

/// GPT-2 block: pre-LayerNorm, fused QKV (c_attn + Split), tanh-GELU MLP.
std::string gpt2_block(LlmBuilder& m, std::int64_t layer, std::string x) {
  const std::string blk = "blocks." + std::to_string(layer), sc = scope_of(blk);
  const std::int64_t d = m.s.d_model, hq = m.s.heads;
  const std::string qkv = m.linear(blk + ".c_attn", norm(m, blk + ".ln1", x), 3 * d);
  const std::string sn = m.node(sc, "Split");
  const auto parts = m.b.add("Split", sn, {qkv, m.ints(sn + ".split", {d, d, d})}, {{"axis", std::int64_t{-1}}}, 3);
  const std::string q = split_heads(m, sc, parts[0], hq);
  const std::string k = split_heads(m, sc, parts[1], m.s.kv_heads);
  const std::string v = split_heads(m, sc, parts[2], m.s.kv_heads);
  x = m.binary(sc, "Add", x, m.linear(blk + ".c_proj", attention(m, sc, layer, q, k, v), d));
  const std::string h = m.linear(blk + ".fc", norm(m, blk + ".ln2", x), m.s.ffn);
  const std::string g = m.same_shape(sc, "Gelu", {h}, {{"approximate", std::string("tanh")}});
  return m.binary(sc, "Add", x, m.linear(blk + ".proj", g, d));
}

/// Llama block: RMSNorm, separate Q/K/V projections, rotary positions on Q and K, SwiGLU MLP.
std::string llama_block(LlmBuilder& m, std::int64_t layer, std::string x) {
  const std::string blk = "blocks." + std::to_string(layer), sc = scope_of(blk);
  const std::int64_t d = m.s.d_model, hd = m.s.head_dim;
  const std::string h = norm(m, blk + ".ln1", x);
  std::string q = split_heads(m, sc, m.linear(blk + ".q", h, m.s.heads * hd), m.s.heads);
  std::string k = split_heads(m, sc, m.linear(blk + ".k", h, m.s.kv_heads * hd), m.s.kv_heads);
  const std::string v = split_heads(m, sc, m.linear(blk + ".v", h, m.s.kv_heads * hd), m.s.kv_heads);
  if (m.s.positions == LlmPositions::Rope) {
    q = rope(m, sc, q);
    k = rope(m, sc, k);
  }
  x = m.binary(sc, "Add", x, m.linear(blk + ".o", attention(m, sc, layer, q, k, v), d));
  const std::string h2 = norm(m, blk + ".ln2", x);
  const std::string gate = m.linear(blk + ".gate", h2, m.s.ffn);
  const std::string silu = m.binary(sc, "Mul", gate, m.b.add1("Sigmoid", m.node(sc, "Sigmoid"), {gate}));
  const std::string up = m.linear(blk + ".up", h2, m.s.ffn);
  return m.binary(sc, "Add", x, m.linear(blk + ".down", m.binary(sc, "Mul", silu, up), d));
}

/// Token embedding (+ learned positions of this step's tokens).
std::string embed(LlmBuilder& m, const std::string& ids) {
  const std::int64_t d = m.s.d_model;
  std::string x = m.b.add_shaped("Gather", "/wte/Gather", {m.b.weight("wte.weight", {m.s.vocab, d}), ids},
                                 {{"axis", std::int64_t{0}}}, {m.batch, m.new_tokens, d});
  if (m.s.positions != LlmPositions::Learned) return x;
  // wpe.weight[start:start + S], a constant once exported (start = 0, or T-1 in decode).
  return m.b.add1("Add", m.node("", "Add"), {x, m.b.weight("wpe.weight.rows", {m.new_tokens, d})});
}

/// LM head: MatMul with head.weight [d, V], or for a tied head a Gemm with transB on the
/// token-embedding matrix wte.weight [V, d] itself (one tensor, read by Gather and head).
std::string lm_head(LlmBuilder& m, const std::string& x) {
  const std::int64_t d = m.s.d_model, rows = m.batch * m.new_tokens;
  if (!m.s.tied_head) return m.linear("head", x, m.s.vocab);
  const std::string flat = m.reshape("/head", x, {rows, d});
  const std::string y = m.b.add1("Gemm", "/head/Gemm", {flat, "wte.weight"},
                                 {{"alpha", 1.0f}, {"beta", 1.0f}, {"transB", std::int64_t{1}}});
  return m.reshape("/head", y, {m.batch, m.new_tokens, m.s.vocab});
}

void check_shape(const LlmSpec& spec, const LlmShape& shape) {
  const std::string what = spec.name + ":" + (shape.phase == LlmPhase::Prefill ? "prefill=" : "decode=") +
                           std::to_string(shape.tokens);
  if (shape.tokens < 1 || shape.tokens > spec.max_context)
    throw ConfigError(what + ": error: " + std::to_string(shape.tokens) + " tokens is outside " + spec.name +
                      "'s context of 1.." + std::to_string(spec.max_context) + " tokens; give a value in that range");
  if (shape.phase == LlmPhase::Decode && shape.tokens == 1)
    throw ConfigError(what + ": error: a decode step at context 1 has an empty KV cache; the first token is "
                      "a prefill: use " + spec.name + ":prefill=1, or decode=2 or more");
  if (shape.batch < 1)
    throw ConfigError(what + ": error: batch " + std::to_string(shape.batch) + " is not positive; give batch=1 or more");
}

}  // namespace

Graph build_llm_graph(const LlmSpec& spec, const LlmShape& shape) {
  check_shape(spec, shape);
  LlmBuilder m(spec, shape);
  const std::string ids = m.b.input("input_ids", {m.batch, m.new_tokens}, ElemType::Int64);
  std::string x = embed(m, ids);
  for (std::int64_t l = 0; l < spec.layers; ++l)
    x = spec.mlp == LlmMlp::GeluTanh ? gpt2_block(m, l, x) : llama_block(m, l, x);
  x = lm_head(m, norm(m, "ln_f", x));
  m.renames[x] = "logits";
  for (const auto& [from, to] : m.renames) m.b.rename_output(from, to);
  std::vector<std::string> outputs{"logits"};
  outputs.insert(outputs.end(), m.outputs.begin(), m.outputs.end());
  // Written as torch exports it (decomposed RMSNorm, tanh GELU, Concat KV cache): the same
  // import passes as an ONNX file of it, so the zoo name and its export compile alike.
  return m.b.finish(outputs, onnx_import_passes());
}

}  // namespace npu::compiler
