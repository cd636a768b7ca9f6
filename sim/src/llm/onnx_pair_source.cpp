// The ONNX pair model source: a prefill export and a decode export of the same weights
// (../shared/models/llm/README.md, export_llm.py). Their shapes are fixed: the decode export
// runs one context length only (its past length + 1).
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <set>

#include <fmt/format.h>

#include "npu/base/config_error.hpp"
#include "npu/compiler/frontend/onnx/onnx_import.hpp"
#include "npu/sim/experiment/experiment.hpp"
#include "npu/sim/llm/model_source.hpp"

namespace npu::sim {
namespace {

using compiler::Graph;
using compiler::Tensor;

// FNV-1a over the tensor's values (float bits or int64s): equal weights hash equal.
std::uint64_t value_hash(const Tensor& t) {
  std::uint64_t h = 1469598103934665603ULL;
  auto mix = [&h](const void* p, std::size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    for (std::size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ULL;
  };
  mix(t.float_data.data(), t.float_data.size() * sizeof(float));
  mix(t.int_data.data(), t.int_data.size() * sizeof(std::int64_t));
  return h;
}

std::string shape_text(const std::vector<std::int64_t>& s) {
  return fmt::format("[{}]", fmt::join(s, ", "));
}

// The weights compared: float constants that a MatMul or Gemm multiplies or a Gather reads
// rows of (the projections, the LM head, the embedding tables). Other constants are not
// parameters of the checkpoint and may differ between the phases: shapes, masks, rotary
// tables sliced to the positions each phase runs.
std::set<std::string> weight_names(const Graph& g) {
  std::set<std::string> out;
  for (const auto& n : g.nodes) {
    if (n.op_type != "MatMul" && n.op_type != "Gemm" && n.op_type != "Gather") continue;
    for (std::size_t i = 0; i < n.inputs.size() && i < (n.op_type == "Gather" ? 1u : 2u); ++i)
      if (g.has_tensor(n.inputs[i]) && g.tensor(n.inputs[i]).is_constant && !g.tensor(n.inputs[i]).float_data.empty())
        out.insert(n.inputs[i]);
  }
  return out;
}

using WeightKey = std::pair<std::vector<std::int64_t>, std::uint64_t>;  // shape, value hash

// The weights of `g` by (shape, value hash), each with its name (for messages).
std::multimap<WeightKey, std::string> weight_keys(const Graph& g) {
  std::multimap<WeightKey, std::string> out;
  for (const auto& name : weight_names(g)) out.emplace(WeightKey{g.tensor(name).shape, value_hash(g.tensor(name))}, name);
  return out;
}

// Throws unless both graphs hold the same weights: equal multisets of (shape, value hash).
// Names are not compared: torch names a transposed MatMul weight by node number
// ("onnx::MatMul_520"), which differs between the two exports of one checkpoint.
void check_same_weights(const Graph& prefill, const Graph& decode, const std::string& pair) {
  const auto pk = weight_keys(prefill), dk = weight_keys(decode);
  auto first_unmatched = [](const auto& a, const auto& b) -> const std::pair<const WeightKey, std::string>* {
    for (auto it = a.begin(); it != a.end(); it = a.upper_bound(it->first))
      if (a.count(it->first) != b.count(it->first)) return &*it;
    return nullptr;
  };
  const auto* miss = first_unmatched(pk, dk);
  const char* in = "prefill", *other = "decode";
  if (!miss) miss = first_unmatched(dk, pk), in = "decode", other = "prefill";
  if (miss)
    throw ConfigError(fmt::format(
        "{}: error: the prefill and decode exports' weights differ: the {} export's '{}' {} has no copy of equal "
        "shape and values in the {} export ({} and {} weights: MatMul/Gemm operands and Gather tables); export "
        "both phases from the same checkpoint and seed (export_llm.py writes matching pairs)",
        pair, in, miss->second, shape_text(miss->first.first), other, pk.size(), dk.size()));
}

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// The decode graph's past.* inputs, each [B, kv_heads, past, head_dim].
std::vector<const Tensor*> past_inputs(const Graph& decode, const std::string& path) {
  std::vector<const Tensor*> past;
  for (const auto& in : decode.inputs)
    if (starts_with(in, "past")) past.push_back(&decode.tensor(in));
  if (past.empty())
    throw ConfigError(fmt::format(
        "{}: error: the decode export has no past.* input (the KV cache of earlier tokens); give the decode export "
        "second: PREFILL.onnx,DECODE.onnx",
        path));
  for (const Tensor* t : past)
    if (t->shape.size() != 4 || t->shape[0] < 1 || t->shape[2] < 1 || t->shape[2] != past.front()->shape[2])
      throw ConfigError(fmt::format(
          "{}: error: KV input '{}' has shape {}; expected [batch, kv_heads, past, head_dim] with one fixed past "
          "length; re-export with fixed shapes",
          path, t->name, shape_text(t->shape)));
  return past;
}

// A decode export given as the prefill (two decode exports, or the pair reversed): its past.*
// inputs would be read as weights of an empty prompt, and TTFT would be one decode step.
void refuse_past_inputs(const Graph& prefill, const std::string& path) {
  for (const auto& in : prefill.inputs)
    if (starts_with(in, "past"))
      throw ConfigError(fmt::format(
          "{}: error: the prefill export has a past.* input ('{}': a KV cache of earlier tokens), so it is a decode "
          "export; give the prefill export first: PREFILL.onnx,DECODE.onnx (export_llm.py writes both)",
          path, in));
}

// A path of the pair, or a lone .onnx MODEL: an existing regular file.
void require_onnx_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw ConfigError(fmt::format("{}: error: is a directory; MODEL is a zoo LLM name or PREFILL.onnx,DECODE.onnx "
                                  "(two ONNX files)",
                                  path));
  if (!std::filesystem::is_regular_file(path, ec))
    throw ConfigError(fmt::format("{}: error: no such file; MODEL is a zoo LLM name or PREFILL.onnx,DECODE.onnx",
                                  path));
}

// input_ids (the first graph input): [batch, tokens].
std::pair<std::int64_t, std::int64_t> ids_shape(const Graph& g, const std::string& path) {
  const Tensor& ids = g.tensor(g.inputs.at(0));
  if (ids.shape.size() != 2 || ids.shape[0] < 1 || ids.shape[1] < 1)
    throw ConfigError(fmt::format("{}: error: first input '{}' has shape {}; expected token ids [batch, tokens] with "
                                  "fixed sizes; re-export with fixed shapes",
                                  path, ids.name, shape_text(ids.shape)));
  return {ids.shape[0], ids.shape[1]};
}

class OnnxPairSource : public ModelSource {
 public:
  OnnxPairSource(std::string prefill, std::string decode) : prefill_(std::move(prefill)), decode_(std::move(decode)) {
    const std::string pair = prefill_ + "," + decode_;
    for (const auto* p : {&prefill_, &decode_}) require_onnx_file(*p);
    const Graph pg = compiler::import_onnx(prefill_);
    const Graph dg = compiler::import_onnx(decode_);
    refuse_past_inputs(pg, prefill_);
    const auto past = past_inputs(dg, decode_);
    const auto [batch, one] = ids_shape(dg, decode_);
    const auto [pbatch, prompt] = ids_shape(pg, prefill_);
    if (pbatch != batch)
      throw ConfigError(fmt::format("{}: error: the prefill export has batch {} and the decode export batch {}; "
                                    "export both phases at one batch",
                                    pair, pbatch, batch));
    check_same_weights(pg, dg, pair);
    shape_.fixed_batch = batch;
    shape_.fixed_prefill = prompt;
    shape_.fixed_past = past.front()->shape[2];
    for (const Tensor* t : past) shape_.kv_elements_per_token += t->elements() / (batch * *shape_.fixed_past);
    shape_.max_context = *shape_.fixed_past + one;  // the decode export's present length
    shape_.decode_writes_whole_cache = true;
  }
  std::string label() const override {  // "gpt2_tiny-prefill.onnx" -> "gpt2_tiny"
    std::string stem = stem_of(prefill_);
    for (const char* suffix : {"-prefill", "_prefill"})
      if (stem.size() > 8 && stem.compare(stem.size() - 8, 8, suffix) == 0) stem.resize(stem.size() - 8);
    return stem;
  }
  const LlmShape& shape() const override { return shape_; }
  std::string prefill_model(std::int64_t, std::int64_t) const override { return prefill_; }
  std::string decode_model(std::int64_t, std::int64_t) const override { return decode_; }

 private:
  std::string prefill_, decode_;
  LlmShape shape_;
};

}  // namespace

std::unique_ptr<ModelSource> open_onnx_pair(const std::string& prefill_path, const std::string& decode_path) {
  return std::make_unique<OnnxPairSource>(prefill_path, decode_path);
}

std::unique_ptr<ModelSource> open_model_source(const std::string& model) {
  const auto comma = model.find(',');
  if (comma == std::string::npos) {
    if (model.size() > 5 && model.compare(model.size() - 5, 5, ".onnx") == 0) {
      require_onnx_file(model);
      throw ConfigError(fmt::format("MODEL '{}': error: one ONNX file is one phase; give the pair as "
                                    "PREFILL.onnx,DECODE.onnx or a zoo LLM name",
                                    model));
    }
    return open_zoo_llm(model);
  }
  const std::string prefill = model.substr(0, comma), decode = model.substr(comma + 1);
  if (prefill.empty() || decode.empty() || decode.find(',') != std::string::npos)
    throw ConfigError(fmt::format("MODEL '{}': error: expected PREFILL.onnx,DECODE.onnx (two paths, one comma)", model));
  return open_onnx_pair(prefill, decode);
}

}  // namespace npu::sim
