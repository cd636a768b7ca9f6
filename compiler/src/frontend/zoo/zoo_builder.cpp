// Zoo registry (zoo.hpp) and the exporter-style graph builder (zoo_builder.hpp).
#include "frontend/zoo/zoo_builder.hpp"

#include <cctype>
#include <map>

#include "npu/compiler/transforms/canonicalize/shape_inference.hpp"
#include "npu/compiler/transforms/pass_manager.hpp"
#include "npu/compiler/frontend/zoo/zoo.hpp"
#include "npu/compiler/frontend/zoo/llm/llm_name.hpp"
#include "npu/base/closest_name.hpp"
#include "npu/base/user_text.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace npu::compiler {

namespace zoo_detail {

std::string scope_of(const std::string& module_path) {
  std::vector<std::string> tokens;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = module_path.find('.', start);
    tokens.push_back(module_path.substr(start, dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  auto numeric = [](const std::string& t) {
    return !t.empty() && std::isdigit(static_cast<unsigned char>(t[0]));
  };
  std::string out;
  std::size_t named = 0;  // index of the last non-numeric token
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (!numeric(tokens[i])) named = i;
    std::string component = tokens[named];
    for (std::size_t j = named + 1; j <= i; ++j) component += "." + tokens[j];
    out += "/" + component;
  }
  return out;
}

ZooBuilder::ZooBuilder(std::string graph_name) : source_("zoo:" + graph_name) {
  g_.name = std::move(graph_name);
}

std::string ZooBuilder::scope(const std::string& module) const {
  std::string s = scope_of(module);
  if (!strip_.empty() && s.rfind(strip_ + "/", 0) == 0) s.erase(0, strip_.size());
  return s;
}

std::string ZooBuilder::input(const std::string& name, std::vector<std::int64_t> shape, ElemType type) {
  Tensor t;
  t.name = name;
  t.shape = std::move(shape);
  t.type = type;
  g_.inputs.push_back(name);
  g_.tensors[name] = std::move(t);
  return name;
}

std::string ZooBuilder::weight(const std::string& name, std::vector<std::int64_t> shape) {
  Tensor t;
  t.name = name;
  t.shape = std::move(shape);
  t.is_constant = true;
  g_.tensors[name] = std::move(t);
  return name;
}

std::string ZooBuilder::constant(const std::string& name, std::vector<std::int64_t> shape,
                                 std::vector<float> values) {
  weight(name, std::move(shape));
  g_.tensors[name].float_data = std::move(values);
  return name;
}

std::string ZooBuilder::constant_ints(const std::string& name, std::vector<std::int64_t> shape,
                                      std::vector<std::int64_t> values) {
  weight(name, std::move(shape));
  Tensor& t = g_.tensors[name];
  t.type = ElemType::Int64;
  t.int_data = std::move(values);
  return name;
}

std::vector<std::string> ZooBuilder::add(const std::string& op, const std::string& name,
                                         std::vector<std::string> inputs,
                                         std::map<std::string, AttrValue> attrs, int outputs) {
  Node n;
  n.name = name;
  n.op_type = op;
  n.inputs = std::move(inputs);
  n.attrs = std::move(attrs);
  for (int i = 0; i < outputs; ++i) {
    n.outputs.push_back(name + "_output_" + std::to_string(i));
    Tensor t;
    t.name = n.outputs.back();
    t.shape = {-1};
    g_.tensors[t.name] = std::move(t);
  }
  std::vector<std::string> outs = n.outputs;
  g_.nodes.push_back(std::move(n));
  infer_node(g_, g_.nodes.size() - 1, source_);
  return outs;
}

std::string ZooBuilder::add1(const std::string& op, const std::string& name,
                             std::vector<std::string> inputs, std::map<std::string, AttrValue> attrs) {
  return add(op, name, std::move(inputs), std::move(attrs), 1).front();
}

std::string ZooBuilder::add_shaped(const std::string& op, const std::string& name,
                                   std::vector<std::string> inputs, std::map<std::string, AttrValue> attrs,
                                   std::vector<std::int64_t> shape, std::optional<ElemType> type) {
  Node n;
  n.name = name;
  n.op_type = op;
  n.inputs = std::move(inputs);
  n.attrs = std::move(attrs);
  n.outputs.push_back(name + "_output_0");
  Tensor t;
  t.name = n.outputs.back();
  t.shape = std::move(shape);
  t.type = type ? *type : g_.tensor(n.inputs.at(0)).type;
  g_.tensors[t.name] = std::move(t);
  g_.nodes.push_back(std::move(n));
  return g_.nodes.back().outputs.back();
}

const std::vector<std::int64_t>& ZooBuilder::shape(const std::string& tensor) const {
  return g_.tensor(tensor).shape;
}

void ZooBuilder::rename_output(const std::string& from, const std::string& to) {
  auto node = g_.tensors.extract(from);
  node.key() = to;
  node.mapped().name = to;
  g_.tensors.insert(std::move(node));
  for (Node& n : g_.nodes) {
    for (std::string& o : n.outputs)
      if (o == from) o = to;
    for (std::string& i : n.inputs)
      if (i == from) i = to;
  }
}

std::string ZooBuilder::conv(const std::string& module, const std::string& x, std::int64_t cout,
                             std::int64_t k, std::int64_t stride, std::int64_t pad,
                             std::int64_t group, bool bias, const std::string& node_scope) {
  const std::int64_t cin = channels(x);
  std::vector<std::string> ins{x, weight(module + ".weight", {cout, cin / group, k, k})};
  if (bias) ins.push_back(weight(module + ".bias", {cout}));
  return add1("Conv", (node_scope.empty() ? scope(module) : node_scope) + "/Conv", std::move(ins),
              {{"dilations", std::vector<std::int64_t>{1, 1}},
               {"group", group},
               {"kernel_shape", std::vector<std::int64_t>{k, k}},
               {"pads", std::vector<std::int64_t>{pad, pad, pad, pad}},
               {"strides", std::vector<std::int64_t>{stride, stride}}});
}

std::string ZooBuilder::batchnorm(const std::string& module, const std::string& x, float epsilon,
                                  float momentum) {
  const std::int64_t c = channels(x);
  return add1("BatchNormalization", scope(module) + "/BatchNormalization",
              {x, weight(module + ".weight", {c}), weight(module + ".bias", {c}),
               weight(module + ".running_mean", {c}), weight(module + ".running_var", {c})},
              {{"epsilon", epsilon}, {"momentum", momentum}});
}

Graph ZooBuilder::finish(const std::vector<std::string>& outputs, const std::vector<std::string>& passes) {
  g_.outputs = outputs;
  // A CNN zoo graph is built canonical (no Q/DQ, no decomposed activations, no Pad): of the
  // import passes it needs shape inference and host placement (the default `passes`).
  run_import_passes(g_, passes, source_);
  return std::move(g_);
}

}  // namespace zoo_detail

const std::vector<std::string>& zoo_model_names() {
  static const std::vector<std::string> kNames = {"mobilenet_v2", "resnet18", "resnet50",
                                                  "yolov5s"};
  return kNames;
}

std::optional<std::string> zoo_canonical_name(const std::string& name) {
  if (name == "mobilenetv2") return std::string("mobilenet_v2");
  for (const std::string& n : zoo_model_names())
    if (n == name) return n;
  try {
    if (auto llm = parse_llm_model_name(name)) return llm_model_name(*llm);
  } catch (const ConfigError&) {
  }
  return std::nullopt;
}

std::string zoo_unknown_model_message(const std::string& name) {
  std::vector<std::string> all = zoo_model_names();
  all.insert(all.end(), llm_model_names().begin(), llm_model_names().end());
  std::string cnn, llm;
  for (const std::string& n : zoo_model_names()) cnn += (cnn.empty() ? "" : ", ") + n;
  for (const std::string& n : llm_model_names()) llm += (llm.empty() ? "" : ", ") + n;
  const auto near = closest_name(name, all);
  return echo(name) + ": error: unknown model" + (near ? " (did you mean '" + *near + "'?)" : std::string()) +
         ": not a built-in model (CNNs: " + cnn + "; alias mobilenetv2; LLMs: " + llm +
         ", as NAME[:prefill=P|:decode=T][:batch=B]) and not an .onnx file path (a path ends in .onnx or "
         "contains '/')";
}

Graph build_zoo_model(const std::string& name, const ZooOptions& options) {
  if (auto llm = parse_llm_model_name(name)) {
    if (options.height != 0 || options.width != 0 || options.batch != 1)
      throw ConfigError(name + ": error: an LLM takes no image size or batch option; give the batch in its "
                        "name (" + llm->spec->name + ":prefill=P:batch=B)");
    return build_llm_graph(*llm->spec, llm->shape);
  }
  const auto canonical = zoo_canonical_name(name);
  if (!canonical) throw ConfigError(zoo_unknown_model_message(name));
  if (options.batch <= 0 || options.height < 0 || options.width < 0)
    throw ConfigError(name + ": error: input batch, height and width must be positive");
  if (*canonical == "resnet18") return zoo_resnet18(options);
  if (*canonical == "resnet50") return zoo_resnet50(options);
  if (*canonical == "mobilenet_v2") return zoo_mobilenet_v2(options);
  return zoo_yolov5s(options);
}

std::optional<std::pair<std::size_t, std::size_t>> repeated_zoo_model(const std::vector<std::string>& names) {
  std::map<std::string, std::size_t> first;  // canonical name -> index of its first spelling
  for (std::size_t i = 0; i < names.size(); ++i)
    if (const auto c = zoo_canonical_name(names[i])) {
      const auto [it, fresh] = first.emplace(*c, i);
      if (!fresh) return std::make_pair(it->second, i);
    }
  return std::nullopt;
}

}  // namespace npu::compiler
