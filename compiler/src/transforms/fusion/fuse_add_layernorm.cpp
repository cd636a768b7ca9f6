#include "npu/compiler/transforms/fusion/fuse_add_layernorm.hpp"
#include "npu/compiler/transforms/pass_registry.hpp"

namespace npu::compiler {

std::vector<Candidate> FuseAddLayerNorm::match(const Graph& graph) const {
  std::vector<Candidate> out;
  for (const auto& add : graph.nodes) {
    if (add.op_type != "Add" || add.inputs.size() != 2 || !graph.has_tensor(add.inputs[0]) ||
        !graph.has_tensor(add.inputs[1]) || graph.tensor(add.inputs[0]).shape != graph.tensor(add.inputs[1]).shape ||
        graph.tensor(add.inputs[0]).is_constant || graph.tensor(add.inputs[1]).is_constant)
      continue;
    for (std::size_t c : graph.consumers(add.outputs[0])) {
      const Node& ln = graph.nodes[c];
      if (ln.op_type != "LayerNormalization" || ln.inputs.empty() || ln.inputs[0] != add.outputs[0]) continue;
      out.push_back({ln.name, {ln.name, add.name}, add.name + " -> " + ln.name});
      break;
    }
  }
  return out;
}

Legality FuseAddLayerNorm::check(const Graph& graph, const Candidate& c) const {
  const Node& ln = graph.nodes[std::size_t(find_node(graph, c.nodes[0]))];
  const Node& add = graph.nodes[std::size_t(find_node(graph, c.nodes[1]))];
  if (is_graph_output(graph, add.outputs[0])) return Legality::decline("Add output is a graph output");
  if (graph.consumers(add.outputs[0]).size() != 1)
    return Legality::decline("Add output also feeds other nodes (a pre-norm residual stream)");
  if (!ln.attr_string(fused_attr::kResidualIn, "").empty()) return Legality::decline(ln.name + " already reads a residual");
  if (graph.tensor(add.outputs[0]).quant)
    return Legality::decline("Add output '" + add.outputs[0] + "' is quantised: an int8 Add rescales both inputs to its "
                             "own grid (TFLite's quantised Add), which the LayerNorm's residual step does not; kept as an "
                             "ELTWISE add");
  return Legality::ok();
}

void FuseAddLayerNorm::rewrite(Graph& graph, const Candidate& c) const {
  Node& ln = graph.nodes[std::size_t(find_node(graph, c.nodes[0]))];
  const Node add = graph.nodes[std::size_t(find_node(graph, c.nodes[1]))];
  ln.inputs[0] = add.inputs[0];
  ln.attrs[fused_attr::kResidualIn] = add.inputs[1];
  graph.tensors.erase(add.outputs[0]);
  merge_nodes(graph, c.nodes[0], {c.nodes[1]});
}

NPU_REGISTER_PASS(FuseAddLayerNorm, 700);

}  // namespace npu::compiler
