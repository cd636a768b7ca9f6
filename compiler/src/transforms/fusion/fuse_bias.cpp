#include "npu/compiler/transforms/fusion/fuse_bias.hpp"
#include "npu/compiler/transforms/pass_registry.hpp"

namespace npu::compiler {

namespace {

bool const_matrix_matmul(const Graph& g, const Node& n) {
  return n.op_type == "MatMul" && n.inputs.size() == 2 && g.has_tensor(n.inputs[1]) &&
         g.tensor(n.inputs[1]).is_constant && g.tensor(n.inputs[1]).shape.size() == 2;
}

// The bias input of `add` (a constant of N elements, shape [N] or [1,...,1,N]) given the
// MatMul output x; "" if it is not one.
std::string bias_of(const Graph& g, const Node& add, const std::string& x) {
  if (add.inputs.size() != 2) return "";
  const std::string& b = add.inputs[0] == x ? add.inputs[1] : add.inputs[0];
  if (b == x || !g.has_tensor(b) || !g.tensor(b).is_constant || !g.has_tensor(x)) return "";
  const auto& bs = g.tensor(b).shape;
  const auto& xs = g.tensor(x).shape;
  if (bs.empty() || xs.empty() || bs.back() != xs.back() || bs.size() > xs.size()) return "";
  for (std::size_t i = 0; i + 1 < bs.size(); ++i)
    if (bs[i] != 1) return "";
  return b;
}

}  // namespace

std::vector<Candidate> FuseBias::match(const Graph& graph) const {
  std::vector<Candidate> out;
  for (const auto& add : graph.nodes) {
    if (add.op_type != "Add" || add.inputs.size() != 2) continue;
    for (const auto& in : add.inputs) {
      const auto p = graph.producer(in);
      if (!p || !const_matrix_matmul(graph, graph.nodes[*p]) || bias_of(graph, add, in).empty()) continue;
      const Node& mm = graph.nodes[*p];
      out.push_back({mm.name, {mm.name, add.name}, mm.name + " + " + add.name});
      break;
    }
  }
  return out;
}

Legality FuseBias::check(const Graph& graph, const Candidate& c) const {
  const Node& mm = graph.nodes[std::size_t(find_node(graph, c.nodes[0]))];
  const std::string& x = mm.outputs[0];
  if (const std::string host = host_anchor_decline(mm, "the bias Add"); !host.empty()) return Legality::decline(host);
  if (is_graph_output(graph, x)) return Legality::decline("MatMul output is a graph output");
  if (graph.consumers(x).size() != 1) return Legality::decline("MatMul output also feeds other nodes");
  if (mm.inputs.size() > 2) return Legality::decline("MatMul already has a bias fused");
  if (!mm.attr_string(fused_attr::kAct, "").empty()) return Legality::decline("MatMul already has an activation fused");
  if (graph.tensor(x).quant)
    return Legality::decline("MatMul output '" + x + "' is quantised: in int8 the bias Add is TFLite's quantised Add "
                             "onto its own grid (as the integer reference computes it); kept as an ELTWISE add");
  return Legality::ok();
}

void FuseBias::rewrite(Graph& graph, const Candidate& c) const {
  Node& mm = graph.nodes[std::size_t(find_node(graph, c.nodes[0]))];
  const Node add = graph.nodes[std::size_t(find_node(graph, c.nodes[1]))];
  const std::string x = mm.outputs[0];
  mm.inputs.push_back(bias_of(graph, add, x));
  mm.outputs[0] = add.outputs[0];
  graph.tensors.erase(x);
  merge_nodes(graph, c.nodes[0], {c.nodes[1]});
}

NPU_REGISTER_PASS(FuseBias, 200);

}  // namespace npu::compiler
