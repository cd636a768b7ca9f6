#include "npu/compiler/transforms/fusion/fuse_se_gate.hpp"
#include "npu/compiler/transforms/pass_registry.hpp"

namespace npu::compiler {

namespace {

// The (data, gate) inputs of Mul `m` when one is [N,C,H,W] and the other [N,C,1,1].
bool split_gate(const Graph& g, const Node& m, std::string& data, std::string& gate) {
  if (m.op_type != "Mul" || m.inputs.size() != 2) return false;
  for (int k = 0; k < 2; ++k) {
    const std::string& a = m.inputs[std::size_t(k)];
    const std::string& b = m.inputs[std::size_t(1 - k)];
    if (!g.has_tensor(a) || !g.has_tensor(b)) return false;
    const auto& sa = g.tensor(a).shape;
    const auto& sb = g.tensor(b).shape;
    if (sa.size() == 4 && sb.size() == 4 && sb[0] == sa[0] && sb[1] == sa[1] && sb[2] == 1 && sb[3] == 1 &&
        sa[2] * sa[3] > 1) {
      data = a;
      gate = b;
      return true;
    }
  }
  return false;
}

}  // namespace

std::vector<Candidate> FuseSeGate::match(const Graph& graph) const {
  std::vector<Candidate> out;
  for (const auto& m : graph.nodes) {
    std::string data, gate;
    if (!split_gate(graph, m, data, gate)) continue;
    for (std::size_t c : graph.consumers(m.outputs[0])) {
      const Node& conv = graph.nodes[c];
      if (conv.op_type != "Conv" || conv.inputs.empty() || conv.inputs[0] != m.outputs[0]) continue;
      out.push_back({conv.name, {conv.name, m.name}, m.name + " (x * " + gate + ") -> " + conv.name});
      break;
    }
  }
  return out;
}

Legality FuseSeGate::check(const Graph& graph, const Candidate& c) const {
  const Node& conv = graph.nodes[std::size_t(find_node(graph, c.nodes[0]))];
  const Node& m = graph.nodes[std::size_t(find_node(graph, c.nodes[1]))];
  if (const std::string host = host_anchor_decline(conv, "the gate's Mul"); !host.empty()) return Legality::decline(host);
  std::string data, gate;
  split_gate(graph, m, data, gate);
  // A constant [1, C, 1, 1] factor is a per-channel scale (a converter's Scale layer), not a
  // gate computed from the data: the Conv would read it only through an attribute, and the
  // unreferenced constant would be dropped before lowering. It stays an element-wise Mul.
  if (graph.tensor(gate).is_constant) return Legality::decline("the factor " + gate + " is a constant, not a computed gate");
  // int8: the gated tensor is written on its own grid by TFLite's quantised Mul (both inputs
  // rescaled); the Conv's input-scale epilogue has no integer rule that gives the same codes.
  if (graph.tensor(data).quant || graph.tensor(m.outputs[0]).quant)
    return Legality::decline("the gated tensor " + data + " is quantised: in int8 the gate is TFLite's quantised Mul");
  if (is_graph_output(graph, m.outputs[0])) return Legality::decline("gated tensor is a graph output");
  if (graph.consumers(m.outputs[0]).size() != 1) return Legality::decline("gated tensor also feeds other nodes");
  if (graph.tensor(data).shape[0] != 1) return Legality::decline("a per-image gate with a batch above 1");
  if (!conv.attr_string(fused_attr::kInScale, "").empty()) return Legality::decline(conv.name + " already scales its input");
  return Legality::ok();
}

void FuseSeGate::rewrite(Graph& graph, const Candidate& c) const {
  Node& conv = graph.nodes[std::size_t(find_node(graph, c.nodes[0]))];
  const Node m = graph.nodes[std::size_t(find_node(graph, c.nodes[1]))];
  std::string data, gate;
  split_gate(graph, m, data, gate);
  conv.inputs[0] = data;
  conv.attrs[fused_attr::kInScale] = gate;
  graph.tensors.erase(m.outputs[0]);
  // The Mul disappears; the gate's producer stays (the Conv reads the gate).
  merge_nodes(graph, c.nodes[0], {c.nodes[1]});
}

NPU_REGISTER_PASS(FuseSeGate, 600);

}  // namespace npu::compiler
