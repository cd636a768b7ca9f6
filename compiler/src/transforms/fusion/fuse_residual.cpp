#include "npu/compiler/transforms/fusion/fuse_residual.hpp"
#include "npu/compiler/transforms/pass_registry.hpp"

namespace npu::compiler {

namespace {

// The Add input that is not `conv_out` (the skip tensor).
const std::string& skip_of(const Node& add, const std::string& conv_out) {
  return add.inputs[0] == conv_out ? add.inputs[1] : add.inputs[0];
}

Legality residual_legality(const Graph& g, const Node& conv, const Node& add) {
  const std::string& x = conv.outputs.at(0);
  if (const std::string host = host_anchor_decline(conv, add.op_type); !host.empty()) return Legality::decline(host);
  const std::string act = conv.attr_string(fused_attr::kAct, "");
  if (!act.empty())
    return Legality::decline("activation " + act + " already fused into " + conv.name +
                             " (the epilogue adds the residual before the activation)");
  if (conv.attr_int(fused_attr::kResidual, 0) != 0) return Legality::decline(conv.name + " already reads a residual");
  if (add.inputs[0] == add.inputs[1]) return Legality::decline("Add of a tensor with itself");
  if (is_graph_output(g, x)) return Legality::decline("conv output is a graph output");
  std::string others;
  for (std::size_t i : g.consumers(x))
    if (g.nodes[i].name != add.name) others += (others.empty() ? "" : ", ") + g.nodes[i].name;
  if (!others.empty()) return Legality::decline("conv output also feeds " + others);
  if (g.tensor(x).quant)
    return Legality::decline("conv output '" + x + "' is quantised: an int8 Add rescales both inputs to its own grid "
                             "(TFLite's quantised Add), which the CONV epilogue's residual step does not; kept as an "
                             "ELTWISE add");
  const Tensor& a = g.tensor(x);
  const Tensor& b = g.tensor(skip_of(add, x));
  if (!a.shape_known() || a.shape != b.shape)
    return Legality::decline("shape mismatch " + shape_string(a.shape) + " vs " + shape_string(b.shape) +
                             " (broadcasting Add is not fused)");
  return Legality::ok();
}

}  // namespace

std::vector<Candidate> FuseResidual::match(const Graph& graph) const {
  std::vector<Candidate> out;
  for (std::size_t ai = 0; ai < graph.nodes.size(); ++ai) {
    const Node& add = graph.nodes[ai];
    if (add.op_type != "Add" || add.inputs.size() != 2 || add.outputs.empty()) continue;
    bool constant_input = false;
    std::vector<std::size_t> convs;  // producers that are Conv, later-produced first
    for (const auto& in : add.inputs) {
      if (in.empty() || !graph.has_tensor(in) || graph.tensor(in).is_constant) constant_input = true;
      const auto p = in.empty() ? std::nullopt : graph.producer(in);
      if (p && graph.nodes[*p].op_type == "Conv") convs.push_back(*p);
    }
    if (constant_input) continue;
    if (convs.empty()) {
      // A BatchNormalization between a Conv and the Add: reported, never rewritten (as
      // fuse-activation reports it), so a strategy that runs fuse-residual before fold-batchnorm
      // reads why instead of "no candidate" (new-user finding).
      for (const auto& in : add.inputs) {
        const auto p = graph.producer(in);
        if (!p || graph.nodes[*p].op_type != "BatchNormalization" || graph.nodes[*p].inputs.empty()) continue;
        const auto q = graph.producer(graph.nodes[*p].inputs[0]);
        if (q && graph.nodes[*q].op_type == "Conv") {
          out.push_back({"", {graph.nodes[*p].name, add.name}, graph.nodes[*q].name + " + " + add.name});
          break;
        }
      }
      continue;
    }
    if (convs.size() == 2 && convs[1] > convs[0]) std::swap(convs[0], convs[1]);
    std::size_t chosen = convs[0];
    if (convs.size() == 2 && !residual_legality(graph, graph.nodes[convs[0]], add).legal &&
        residual_legality(graph, graph.nodes[convs[1]], add).legal)
      chosen = convs[1];
    const Node& conv = graph.nodes[chosen];
    std::vector<std::string> nodes{conv.name, add.name};
    std::string label = conv.name + " + " + add.name;
    const auto cons = graph.consumers(add.outputs[0]);
    if (cons.size() == 1 && graph.nodes[cons[0]].op_type == "Relu" && !is_graph_output(graph, add.outputs[0])) {
      nodes.push_back(graph.nodes[cons[0]].name);
      label += " -> " + graph.nodes[cons[0]].name;
    }
    out.push_back({conv.name, nodes, label});
  }
  return out;
}

Legality FuseResidual::check(const Graph& graph, const Candidate& c) const {
  if (c.anchor.empty())
    return Legality::decline("BatchNormalization " + c.nodes[0] + " between conv and Add " + c.nodes[1] +
                             " (not folded before this pass: fold-batchnorm absent or later in the strategy)");
  const Node& conv = graph.nodes[std::size_t(find_node(graph, c.nodes[0]))];
  const Node& add = graph.nodes[std::size_t(find_node(graph, c.nodes[1]))];
  return residual_legality(graph, conv, add);
}

void FuseResidual::rewrite(Graph& graph, const Candidate& c) const {
  Node& conv = graph.nodes[std::size_t(find_node(graph, c.nodes[0]))];
  const Node add = graph.nodes[std::size_t(find_node(graph, c.nodes[1]))];
  const std::string x = conv.outputs[0];
  const std::string skip = skip_of(add, x);
  conv.inputs.resize(4);
  conv.inputs[3] = skip;
  conv.attrs[fused_attr::kResidual] = std::int64_t(1);
  std::string new_out = add.outputs[0];
  if (c.nodes.size() == 3) {
    const Node& relu = graph.nodes[std::size_t(find_node(graph, c.nodes[2]))];
    conv.attrs[fused_attr::kAct] = std::string("relu");
    new_out = relu.outputs[0];
    graph.tensors.erase(add.outputs[0]);
  }
  conv.outputs[0] = new_out;
  graph.tensors.erase(x);
  merge_nodes(graph, c.nodes[0], std::vector<std::string>(c.nodes.begin() + 1, c.nodes.end()));
}

NPU_REGISTER_PASS(FuseResidual, 500);

}  // namespace npu::compiler
