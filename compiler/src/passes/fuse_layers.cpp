#include "npu/compiler/passes/fuse_layers.hpp"

namespace npu::compiler {

namespace {

bool tileable_op(const Node& n) { return n.op_type == "Conv" || n.op_type == "MaxPool" || n.op_type == "AveragePool"; }

// Why `n` cannot run in a stack, or "".
std::string problem(const Graph& g, const Node& n) {
  if (n.inputs.empty() || n.outputs.empty() || !g.has_tensor(n.inputs[0]) || !g.has_tensor(n.outputs[0]))
    return n.name + " has no data input or output";
  for (const std::string& t : {n.inputs[0], n.outputs[0]}) {
    const auto& shape = g.tensor(t).shape;
    if (shape.size() != 4) return n.name + " is not 2-D (tensor " + t + " has rank " + std::to_string(shape.size()) + ")";
    if (shape[0] != 1) return n.name + " runs a batch of " + std::to_string(shape[0]) + " (bands cover one image)";
  }
  if (!n.attr_string(fused_attr::kInScale, "").empty())
    return n.name + " scales its input channels by a gate computed from the whole input (fuse-se-gate)";
  return "";
}

}  // namespace

std::vector<Candidate> FuseLayers::match(const Graph& graph) const {
  std::vector<Candidate> out;
  for (const Node& n : graph.nodes) {
    if (!tileable_op(n) || n.inputs.empty()) continue;
    const auto p = graph.producer(n.inputs[0]);
    if (!p) continue;
    const Node& prod = graph.nodes[*p];
    if (!tileable_op(prod)) continue;
    out.push_back({n.name, {n.name, prod.name}, prod.name + " -> " + n.name});
  }
  return out;
}

Legality FuseLayers::check(const Graph& graph, const Candidate& c) const {
  for (const auto& name : c.nodes) {
    const long i = find_node(graph, name);
    if (i < 0) return Legality::decline("node " + name + " is gone");
    const std::string why = problem(graph, graph.nodes[std::size_t(i)]);
    if (!why.empty()) return Legality::decline(why);
  }
  return Legality::ok();
}

void FuseLayers::rewrite(Graph& graph, const Candidate& c) const {
  for (const auto& name : c.nodes) graph.nodes[std::size_t(find_node(graph, name))].attrs[fused_attr::kDepthFirst] =
      std::int64_t(1);
}

}  // namespace npu::compiler
