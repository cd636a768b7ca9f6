// Model loading front door (model_loader.hpp).
#include "npu/compiler/frontend/model_loader.hpp"
#include "npu/base/user_text.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "npu/compiler/frontend/onnx/onnx_import.hpp"
#include "npu/compiler/transforms/pass_manager.hpp"
#include "npu/compiler/frontend/zoo/zoo.hpp"
#include "npu/compiler/frontend/zoo/llm/llm_name.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace npu::compiler {

namespace {

std::string shape_text(const std::vector<std::int64_t>& s, const char* unknown) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i) out += "x";
    out += s[i] < 0 ? std::string(unknown) : std::to_string(s[i]);
  }
  return out;
}

bool is_path(const std::string& s) {
  const std::string ext = ".onnx";
  if (s.find('/') != std::string::npos ||
      (s.size() >= ext.size() && s.compare(s.size() - ext.size(), ext.size(), ext) == 0))
    return true;
  // Any other existing file (e.g. "model.ONNX" in the current folder) is a path too, unless
  // the name is a zoo name.
  std::error_code ec;
  return !zoo_canonical_name(s) && std::filesystem::is_regular_file(s, ec);
}

std::string input_list(const Graph& g) {
  std::string list;
  for (const std::string& in : g.inputs) {
    const Tensor& t = g.tensor(in);
    list += (list.empty() ? "" : ", ") + in + " " + shape_text(t.shape, "?");
  }
  return list;
}

/// What load_model does to an imported ONNX graph: --input-shape overrides, the static-shape
/// check, shape inference, recognisers, pad merging, host placement.
Graph finish_onnx(Graph g, OnnxModelInfo& info, const std::string& model_or_path, const LoadOptions& options);

}  // namespace

std::pair<std::string, std::vector<std::int64_t>> parse_input_shape(const std::string& spec) {
  auto bad = [&](const std::string& why) -> ConfigError {
    return ConfigError("--input-shape '" + echo(spec) + "': error: " + why +
                       "; expected NAME=D0xD1x... with positive dimensions, e.g. "
                       "input=1x3x224x224");
  };
  const std::size_t eq = spec.rfind('=');
  if (eq == std::string::npos || eq == 0) throw bad("missing 'NAME='");
  std::vector<std::int64_t> dims;
  std::size_t pos = eq + 1;
  while (true) {
    const std::size_t x = spec.find('x', pos);
    const std::string tok = spec.substr(pos, x == std::string::npos ? std::string::npos : x - pos);
    if (tok.empty()) throw bad("empty dimension");
    const bool negative = tok.size() > 1 && tok[0] == '-' &&
                          tok.find_first_not_of("0123456789", 1) == std::string::npos;
    if (negative) throw bad("dimension " + tok + " is negative");
    for (char c : tok)
      if (!std::isdigit(static_cast<unsigned char>(c))) throw bad("dimension '" + echo(tok) + "' is not a number");
    // 2^31 per dimension (as --dynamic-size): element counts of a few dimensions stay far
    // inside 64 bits, and no real tensor dimension is larger.
    const std::size_t nz = std::min(tok.find_first_not_of('0'), tok.size());
    if (tok.size() - nz > 10 || std::stoll(tok.substr(nz).empty() ? "0" : tok.substr(nz)) > (1LL << 31))
      throw bad("dimension " + echo(tok) + " is out of range: at most 2147483648 (2^31)");
    const std::int64_t d = std::stoll(tok);
    if (d <= 0) throw bad("dimension " + tok + " is not positive");
    dims.push_back(d);
    if (x == std::string::npos) break;
    pos = x + 1;
  }
  return {spec.substr(0, eq), dims};
}

void add_input_shape(LoadOptions& options, const std::string& spec) {
  auto parsed = parse_input_shape(spec);
  if (!options.input_shapes.insert(parsed).second)
    throw ConfigError("--input-shape '" + spec + "': error: input '" + parsed.first +
                      "' is given twice; give each input's shape once");
}

Graph load_model(const std::string& model_or_path, const LoadOptions& options) {
  if (!is_path(model_or_path)) {
    if (auto llm = parse_llm_model_name(model_or_path)) {  // throws for a malformed LLM name
      if (!options.input_shapes.empty())
        throw ConfigError(model_or_path + ": error: --input-shape does not apply to a zoo LLM; give the phase "
                          "and batch in the name: " + llm->spec->name + ":prefill=P:batch=B or " +
                          llm->spec->name + ":decode=T:batch=B");
      Graph lg = build_llm_graph(*llm->spec, llm->shape);
      lg.source = model_or_path;
      lg.dynamic_size = options.dynamic_size;  // every size is known: compile() notes the flag does nothing
      return lg;
    }
    if (!zoo_canonical_name(model_or_path)) throw ConfigError(zoo_unknown_model_message(model_or_path));
    ZooOptions zo;
    for (const auto& [name, shape] : options.input_shapes) {
      if (name != "input")
        throw ConfigError(model_or_path + ": error: --input-shape names '" + name +
                          "', but the built-in model's only input is 'input'");
      if (shape.size() != 4 || shape[1] != 3)
        throw ConfigError(model_or_path + ": error: --input-shape input=" + shape_text(shape, "?") +
                          " must be Nx3xHxW for a built-in model (e.g. input=1x3x224x224)");
      zo.batch = shape[0];
      zo.height = shape[2];
      zo.width = shape[3];
    }
    Graph zg = build_zoo_model(model_or_path, zo);
    zg.source = model_or_path;
    zg.dynamic_size = options.dynamic_size;  // as for an LLM (new-user finding: silent on a zoo CNN)
    return zg;
  }

  OnnxModelInfo info;
  Graph g = import_onnx(model_or_path, &info);
  return finish_onnx(std::move(g), info, model_or_path, options);
}

Graph load_model_bytes(const std::string& bytes, const std::string& source, const LoadOptions& options) {
  OnnxModelInfo info;
  Graph g = import_onnx_bytes(bytes, source, &info);
  return finish_onnx(std::move(g), info, source, options);
}

namespace {

Graph finish_onnx(Graph g, OnnxModelInfo& info, const std::string& model_or_path, const LoadOptions& options) {
  for (const auto& [name, shape] : options.input_shapes) {
    auto it = std::find(g.inputs.begin(), g.inputs.end(), name);
    if (it == g.inputs.end())
      throw ConfigError(model_or_path + ": error: --input-shape names '" + name +
                        "', which is not a graph input; the inputs are: " + input_list(g));
    Tensor& t = g.tensor(name);
    const bool rank_known = !(t.shape.size() == 1 && t.shape[0] < 0 &&
                              info.dim_params[name] == std::vector<std::string>{"(rank unknown)"});
    if (rank_known && t.shape.size() != shape.size())
      throw ConfigError(model_or_path + ": error: --input-shape " + name + "=" +
                        shape_text(shape, "?") + " has rank " + std::to_string(shape.size()) +
                        ", the model declares rank " + std::to_string(t.shape.size()) + " (" +
                        shape_text(t.shape, "?") + ")");
    t.shape = shape;
  }
  for (const std::string& name : g.inputs) {
    const Tensor& t = g.tensor(name);
    if (t.shape_known()) continue;
    const auto& params = info.dim_params[name];
    std::vector<std::int64_t> example = t.shape;
    std::string dynamic;
    for (std::size_t i = 0; i < example.size(); ++i) {
      if (example[i] >= 0) continue;
      example[i] = i == 0 ? 1 : 224;
      if (!dynamic.empty()) dynamic += ", ";
      dynamic += std::to_string(i);
      if (i < params.size() && !params[i].empty() && params[i] != "?")
        dynamic += " ('" + params[i] + "')";
    }
    const bool no_rank = params == std::vector<std::string>{"(rank unknown)"};
    throw ConfigError(
        model_or_path + ": error: graph input '" + name + "' " +
        (no_rank ? std::string("has no declared shape")
                 : "has shape " + shape_text(t.shape, "?") + " with dynamic dimension " + dynamic +
                       " and no value for it") +
        "; the compiler needs static shapes: re-export the model with a fixed input shape, "
        "or pass --input-shape " + name + "=" +
        (no_rank ? std::string("1x3x224x224") : shape_text(example, "?")) +
        " (your real sizes)");
  }
  g.dynamic_size = options.dynamic_size;
  g.dropout_as_identity = options.dropout_as_identity;
  // Every registered import pass, in pipeline order: shape inference (constant folding), QDQ
  // folding, activation and LayerNorm recognition, pad merging, host placement.
  run_import_passes(g, onnx_import_passes(), model_or_path);
  // The declared output shapes describe the file's own input shapes: an --input-shape
  // override changes them legitimately.
  if (options.input_shapes.empty())
    for (std::string& w : declared_output_warnings(g, info)) g.import_warnings.push_back(std::move(w));
  g.source = model_or_path;
  return g;
}

}  // namespace

}  // namespace npu::compiler
