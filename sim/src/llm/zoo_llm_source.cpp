// The zoo model source: a built-in LLM by name, simulated at any prompt, context and batch
// through load_model's "NAME:prefill=P:batch=B" and "NAME:decode=T:batch=B" model strings.
// zoo_llm_shape() is the one place that reads the zoo's spec (layers, kv_heads, head_dim, max
// context).
#include <algorithm>

#include <fmt/format.h>

#include "npu/base/closest_name.hpp"
#include "npu/base/config_error.hpp"
#include "npu/compiler/frontend/zoo/llm/llm_spec.hpp"
#include "npu/sim/llm/model_source.hpp"

namespace npu::sim {
namespace {

// The zoo's spec of `name` (compiler/frontend/zoo/llm/llm_spec.hpp) as the shape `npu llm`
// needs: K and V of every layer's KV heads, per token.
LlmShape zoo_llm_shape(const std::string& name) {
  const compiler::LlmSpec* spec = compiler::find_llm_spec(name);
  if (!spec) throw ConfigError(fmt::format("MODEL '{}': error: not a zoo LLM", name));
  LlmShape shape;
  shape.kv_elements_per_token = 2 * spec->layers * spec->kv_heads * spec->head_dim;
  shape.max_context = spec->max_context;
  shape.sliding_window = spec->sliding_window;
  return shape;
}

class ZooLlmSource : public ModelSource {
 public:
  explicit ZooLlmSource(std::string name) : name_(std::move(name)), shape_(zoo_llm_shape(name_)) {}
  std::string label() const override { return name_; }
  const LlmShape& shape() const override { return shape_; }
  std::string prefill_model(std::int64_t prompt, std::int64_t batch) const override {
    return fmt::format("{}:prefill={}:batch={}", name_, prompt, batch);
  }
  std::string decode_model(std::int64_t context, std::int64_t batch) const override {
    return fmt::format("{}:decode={}:batch={}", name_, context, batch);
  }

 private:
  std::string name_;
  LlmShape shape_;
};

}  // namespace

std::vector<std::string> zoo_llm_names() { return compiler::llm_model_names(); }

std::unique_ptr<ModelSource> open_zoo_llm(const std::string& name) {
  const auto names = zoo_llm_names();
  const bool known = std::find(names.begin(), names.end(), name) != names.end();
  const std::string base = name.substr(0, name.find(':'));
  if (!known && base != name && std::find(names.begin(), names.end(), base) != names.end())
    throw ConfigError(fmt::format("MODEL '{}': error: npu llm takes the bare zoo name and simulates both phases "
                                  "itself; give '{}' with --prompt P, --generate G and --batch B",
                                  name, base));
  if (!known) {
    const auto near = closest_name(name, names);
    throw ConfigError(fmt::format("MODEL '{}': error: not a zoo LLM{}; zoo LLMs: {}; or give an ONNX pair "
                                  "PREFILL.onnx,DECODE.onnx",
                                  name, near ? fmt::format(" (did you mean '{}'?)", *near) : std::string(),
                                  fmt::join(names, ", ")));
  }
  return std::make_unique<ZooLlmSource>(name);
}

}  // namespace npu::sim
