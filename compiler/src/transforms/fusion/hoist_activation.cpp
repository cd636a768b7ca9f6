#include "npu/compiler/transforms/fusion/hoist_activation.hpp"
#include "npu/compiler/transforms/pass_registry.hpp"

#include <set>

namespace npu::compiler {

namespace {

bool activation_op(const std::string& op) {
  static const std::set<std::string> kOps{"Relu", "Clip", "LeakyRelu", "Sigmoid", "HardSigmoid", "HardSwish", "Gelu"};
  return kOps.count(op) > 0;
}

bool layout_op(const std::string& op) {
  static const std::set<std::string> kOps{"Reshape", "Transpose", "Flatten", "Squeeze", "Unsqueeze"};
  return kOps.count(op) > 0;
}

bool producer_op(const std::string& op) { return op == "Conv" || op == "Gemm" || op == "MatMul"; }

// A Sigmoid whose output and input both feed one Mul (SiLU: fuse-activation fuses the pair).
bool silu_sigmoid(const Graph& g, const Node& s) {
  if (s.op_type != "Sigmoid" || s.outputs.empty()) return false;
  for (std::size_t c : g.consumers(s.outputs[0])) {
    const Node& m = g.nodes[c];
    if (m.op_type == "Mul" && m.inputs.size() == 2 &&
        ((m.inputs[0] == s.inputs[0] && m.inputs[1] == s.outputs[0]) ||
         (m.inputs[1] == s.inputs[0] && m.inputs[0] == s.outputs[0])))
      return true;
  }
  return false;
}

// The layout nodes from `act`'s input back to a Conv/Gemm/MatMul (nearest first), or empty.
std::vector<std::size_t> layout_chain(const Graph& g, const Node& act, std::size_t* producer) {
  std::vector<std::size_t> chain;
  std::string t = act.inputs.empty() ? std::string() : act.inputs[0];
  for (;;) {
    if (t.empty()) return {};
    const auto p = g.producer(t);
    if (!p) return {};
    const Node& n = g.nodes[*p];
    if (producer_op(n.op_type)) {
      if (chain.empty()) return {};
      *producer = *p;
      return chain;
    }
    if (!layout_op(n.op_type) || n.inputs.empty() || n.outputs.size() != 1) return {};
    chain.push_back(*p);
    t = n.inputs[0];
  }
}

}  // namespace

std::vector<Candidate> HoistActivation::match(const Graph& graph) const {
  std::vector<Candidate> out;
  for (const Node& a : graph.nodes) {
    if (!activation_op(a.op_type) || a.inputs.empty() || a.outputs.size() != 1 || silu_sigmoid(graph, a)) continue;
    std::size_t producer = 0;
    const std::vector<std::size_t> chain = layout_chain(graph, a, &producer);
    if (chain.empty()) continue;
    Candidate c;
    c.anchor = a.name;
    c.nodes.push_back(a.name);
    std::string label = graph.nodes[producer].name;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) label += " -> " + graph.nodes[*it].name;
    for (std::size_t k : chain) c.nodes.push_back(graph.nodes[k].name);
    c.label = label + " -> " + a.name;
    out.push_back(std::move(c));
  }
  return out;
}

Legality HoistActivation::check(const Graph& graph, const Candidate& c) const {
  const long ai = find_node(graph, c.nodes[0]);
  if (ai < 0) return Legality::decline("node " + c.nodes[0] + " is gone");
  const Node& a = graph.nodes[std::size_t(ai)];
  std::size_t producer = 0;
  const std::vector<std::size_t> chain = layout_chain(graph, a, &producer);
  if (chain.size() + 1 != c.nodes.size()) return Legality::decline("the layout chain changed");
  // Every tensor from the producer's output to the activation's input: one reader, not an output.
  std::vector<std::string> tensors{a.inputs[0]};
  for (std::size_t k : chain) tensors.push_back(graph.nodes[k].inputs[0]);
  for (const std::string& t : tensors) {
    if (is_graph_output(graph, t)) return Legality::decline(t + " is a graph output (it must keep its values)");
    if (graph.consumers(t).size() != 1) return Legality::decline(t + " is also read by another node");
    if (graph.tensor(t).quant) return Legality::decline(t + " carries quantisation parameters");
  }
  if (graph.tensor(a.outputs[0]).quant) return Legality::decline(a.outputs[0] + " carries quantisation parameters");
  return Legality::ok();
}

void HoistActivation::rewrite(Graph& graph, const Candidate& c) const {
  const std::size_t ai = std::size_t(find_node(graph, c.nodes[0]));
  std::size_t producer = 0;
  const std::vector<std::size_t> chain = layout_chain(graph, graph.nodes[ai], &producer);
  const std::size_t first = chain.back(), last = chain.front();  // L1 (reads t0), Lk (writes tk)
  const std::string t0 = graph.nodes[first].inputs[0];
  const std::string tk = graph.nodes[ai].inputs[0];
  const std::string ta = graph.nodes[ai].outputs[0];
  std::string a0 = ta + ".hoisted";
  while (graph.has_tensor(a0)) a0 += "_";
  Tensor moved = graph.tensor(t0);
  moved.name = a0;
  moved.is_constant = false;
  moved.float_data.clear();
  moved.int_data.clear();
  graph.tensors[a0] = moved;
  graph.tensors.at(ta).shape = graph.tensor(tk).shape;
  graph.nodes[ai].inputs[0] = t0;
  graph.nodes[ai].outputs[0] = a0;
  graph.nodes[first].inputs[0] = a0;
  graph.nodes[last].outputs[0] = ta;
  graph.tensors.erase(tk);
  // The activation now runs right after the producer (which precedes it: it reads the
  // producer's output through the chain), before the layout chain.
  Node act = graph.nodes[ai];
  graph.nodes.erase(graph.nodes.begin() + long(ai));
  graph.nodes.insert(graph.nodes.begin() + long(producer + 1), std::move(act));
}

NPU_REGISTER_PASS(HoistActivation, 300);

}  // namespace npu::compiler
