#include "npu/compiler/transforms/fusion/fold_batchnorm.hpp"
#include "npu/compiler/transforms/pass_registry.hpp"

#include <cmath>

namespace npu::compiler {

namespace {

// Consumers of `tensor` by name, for messages.
std::string consumer_names(const Graph& g, const std::string& tensor, const std::string& except) {
  std::string s;
  for (std::size_t i : g.consumers(tensor)) {
    if (g.nodes[i].name == except) continue;
    s += (s.empty() ? "" : ", ") + g.nodes[i].name;
  }
  return s;
}

bool has_data(const Tensor& t) {
  return t.is_constant && t.elements() > 0 && std::int64_t(t.float_data.size()) == t.elements();
}

}  // namespace

std::vector<Candidate> FoldBatchNorm::match(const Graph& graph) const {
  std::vector<Candidate> out;
  for (const auto& bn : graph.nodes) {
    if (bn.op_type != "BatchNormalization" || bn.inputs.empty()) continue;
    const auto p = graph.producer(bn.inputs[0]);
    if (!p || graph.nodes[*p].op_type != "Conv") {
      // Reported, never rewritten: --explain says why this BN stays an ACT scale_shift.
      out.push_back({"", {bn.name}, bn.name});
      continue;
    }
    const Node& conv = graph.nodes[*p];
    out.push_back({conv.name, {conv.name, bn.name}, conv.name + " + " + bn.name});
  }
  return out;
}

Legality FoldBatchNorm::check(const Graph& graph, const Candidate& c) const {
  if (c.anchor.empty()) {
    const Node& bn = graph.nodes[std::size_t(find_node(graph, c.nodes[0]))];
    const auto p = graph.producer(bn.inputs[0]);
    if (!p) return Legality::decline("input '" + bn.inputs[0] + "' is a graph input or a constant, not a Conv output");
    const Node& prev = graph.nodes[*p];
    if (prev.op_type == "Conv")  // the BN before it was folded into this conv in this pass
      return Legality::decline("second BatchNormalization after one folded into " + prev.name +
                               " (each BN is matched once, against its input at the start of the pass)");
    if (prev.op_type == "BatchNormalization")
      return Legality::decline("input comes from BatchNormalization " + prev.name +
                               " (a second BN in a row is not folded; it stays a scale/shift layer)");
    return Legality::decline("input comes from " + prev.op_type + " " + prev.name + ", not a Conv");
  }
  const Node& conv = graph.nodes[std::size_t(find_node(graph, c.nodes[0]))];
  const Node& bn = graph.nodes[std::size_t(find_node(graph, c.nodes[1]))];
  if (const std::string host = host_anchor_decline(conv, "BatchNormalization"); !host.empty())
    return Legality::decline(host);
  std::size_t bn_outputs = 0;
  for (const auto& o : bn.outputs) bn_outputs += o.empty() ? 0 : 1;
  if (bn_outputs != 1)
    return Legality::decline("training-form BatchNormalization (" + std::to_string(bn_outputs) +
                             " outputs; only the 1-output inference form folds)");
  if (bn.attr_int("training_mode", 0) != 0) return Legality::decline("BatchNormalization has training_mode=1");
  if (conv.attr_string(fused_attr::kAct, "") != "" || conv.attr_int(fused_attr::kResidual, 0) != 0)
    return Legality::decline("conv already has a fused epilogue (activation/residual) before the BatchNormalization");
  if (bn.inputs.size() < 5) return Legality::decline("BatchNormalization has fewer than 5 inputs");
  static const char* kStatNames[] = {"scale", "B", "mean", "var"};
  for (int k = 0; k < 4; ++k) {
    const std::string& name = bn.inputs[std::size_t(k + 1)];
    if (name.empty() || !graph.has_tensor(name) || !graph.tensor(name).is_constant)
      return Legality::decline(std::string("statistics not constant: ") + kStatNames[k] + " '" + name +
                               "' is computed at run time");
  }
  if (conv.inputs.size() < 2 || !graph.has_tensor(conv.inputs[1]) || !graph.tensor(conv.inputs[1]).is_constant)
    return Legality::decline("conv weights are not a constant initializer");
  const Tensor& w = graph.tensor(conv.inputs[1]);
  if (w.shape.empty() || w.shape[0] <= 0) return Legality::decline("conv weight shape unknown");
  if (w.quant)
    return Legality::decline("conv weights are quantised (Tensor::quant): folding would move them off their int8 "
                             "grid (fold BN before quantising)");
  const std::int64_t c_out = w.shape[0];
  for (int k = 0; k < 4; ++k) {
    const Tensor& s = graph.tensor(bn.inputs[std::size_t(k + 1)]);
    if (s.elements() != c_out)
      return Legality::decline("channel count mismatch: conv has " + std::to_string(c_out) +
                               " output channels, BatchNormalization " + kStatNames[k] + " has " +
                               std::to_string(s.elements()));
  }
  const std::string& x = conv.outputs.at(0);
  if (is_graph_output(graph, x)) return Legality::decline("conv output is a graph output");
  if (graph.consumers(x).size() != 1)
    return Legality::decline("conv output also feeds " + consumer_names(graph, x, bn.name));
  bool numeric = has_data(w) && (conv.inputs.size() < 3 || conv.inputs[2].empty() || has_data(graph.tensor(conv.inputs[2])));
  for (int k = 1; k <= 4; ++k) numeric = numeric && has_data(graph.tensor(bn.inputs[std::size_t(k)]));
  return Legality::ok(numeric ? "" : "structural: constant values not materialised");
}

void FoldBatchNorm::rewrite(Graph& graph, const Candidate& c) const {
  Node& conv_ref = graph.nodes[std::size_t(find_node(graph, c.nodes[0]))];
  const Node bn = graph.nodes[std::size_t(find_node(graph, c.nodes[1]))];
  const Tensor w = graph.tensor(conv_ref.inputs[1]);
  const std::int64_t c_out = w.shape[0];
  const bool has_bias = conv_ref.inputs.size() >= 3 && !conv_ref.inputs[2].empty();
  const Tensor* bias = has_bias ? &graph.tensor(conv_ref.inputs[2]) : nullptr;
  const Tensor& g = graph.tensor(bn.inputs[1]);
  const Tensor& beta = graph.tensor(bn.inputs[2]);
  const Tensor& mean = graph.tensor(bn.inputs[3]);
  const Tensor& var = graph.tensor(bn.inputs[4]);
  const double eps = bn.attr_float("epsilon", 1e-5f);

  Tensor wf;
  wf.name = conv_ref.name + ".W_folded";
  wf.shape = w.shape;
  wf.type = ElemType::Float32;
  wf.is_constant = true;
  Tensor bf;
  bf.name = conv_ref.name + ".B_folded";
  bf.shape = {c_out};
  bf.type = ElemType::Float32;
  bf.is_constant = true;

  const bool numeric = has_data(w) && (!bias || has_data(*bias)) && has_data(g) && has_data(beta) &&
                       has_data(mean) && has_data(var);
  if (numeric) {
    const std::int64_t per_oc = w.elements() / c_out;
    wf.float_data.resize(w.float_data.size());
    bf.float_data.resize(std::size_t(c_out));
    for (std::int64_t o = 0; o < c_out; ++o) {
      const auto so = std::size_t(o);
      // factor = g / sqrt(v + eps); W' = W * factor; b' = (b - mean) * factor + beta.
      const double factor = double(g.float_data[so]) / std::sqrt(double(var.float_data[so]) + eps);
      for (std::int64_t k = 0; k < per_oc; ++k) {
        const auto idx = std::size_t(o * per_oc + k);
        wf.float_data[idx] = float(double(w.float_data[idx]) * factor);
      }
      const double b = bias ? double(bias->float_data[so]) : 0.0;
      bf.float_data[so] = float((b - double(mean.float_data[so])) * factor + double(beta.float_data[so]));
    }
  }
  const std::string old_out = conv_ref.outputs[0];
  conv_ref.inputs.resize(std::max<std::size_t>(conv_ref.inputs.size(), 3));
  conv_ref.inputs[1] = wf.name;
  conv_ref.inputs[2] = bf.name;
  conv_ref.outputs[0] = bn.outputs[0];
  conv_ref.attrs[fused_attr::kFoldedBn] = bn.name;
  graph.tensors[wf.name] = std::move(wf);
  graph.tensors[bf.name] = std::move(bf);
  graph.tensors.erase(old_out);
  merge_nodes(graph, c.nodes[0], {bn.name});
}

NPU_REGISTER_PASS(FoldBatchNorm, 100);

}  // namespace npu::compiler
