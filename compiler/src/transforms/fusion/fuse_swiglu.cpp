// fuse-swiglu (fuse_swiglu.hpp): gate GEMM (SiLU) + up GEMM (mul= gate) -> one dual GEMM.
#include "npu/compiler/transforms/fusion/fuse_swiglu.hpp"

#include "npu/compiler/transforms/pass_registry.hpp"

namespace npu::compiler {

namespace {

// A GEMM by constant weights: MatMul with a constant 2-D B (nn.Linear), or Gemm.
bool swiglu_weight_gemm(const Graph& g, const Node& n) {
  if (n.on_host || n.inputs.size() < 2 || n.outputs.empty()) return false;
  if (n.op_type == "Gemm") return g.has_tensor(n.inputs[1]) && g.tensor(n.inputs[1]).is_constant;
  if (n.op_type != "MatMul" || !g.has_tensor(n.inputs[1])) return false;
  const Tensor& b = g.tensor(n.inputs[1]);
  return b.is_constant && b.shape.size() == 2;
}

// Input i of n, or "" when n has fewer inputs.
std::string input(const Node& n, std::size_t i) { return i < n.inputs.size() ? n.inputs[i] : std::string(); }

// The up GEMM's gate operand (input 3 under kResidualMul), or "".
std::string gate_operand(const Node& up) {
  if (up.attr_int(fused_attr::kResidual, 0) == 0 || up.attr_int(fused_attr::kResidualMul, 0) == 0) return "";
  return input(up, 3);
}

// Why the two GEMMs' attributes differ where the dual GEMM needs them equal, or "".
std::string attribute_problem(const Node& gate, const Node& up) {
  if (gate.op_type != up.op_type) return "ops differ (" + gate.op_type + " vs " + up.op_type + ")";
  if (gate.attr_int("transB", 0) != up.attr_int("transB", 0)) return "transB differs";
  if (gate.attr_float("alpha", 1.0f) != up.attr_float("alpha", 1.0f)) return "alpha differs";
  if (!input(gate, 2).empty()) return "the gate GEMM " + gate.name + " has a bias (the dual GEMM has one bias vector)";
  if (gate.attr_int(fused_attr::kResidual, 0) != 0) return "the gate GEMM " + gate.name + " reads a residual";
  if (gate.attr_int(fused_attr::kRope, 0) != 0 || up.attr_int(fused_attr::kRope, 0) != 0)
    return "a rotary epilogue on " + (gate.attr_int(fused_attr::kRope, 0) != 0 ? gate.name : up.name);
  if (gate.attr_string(fused_attr::kPrologue, "") != up.attr_string(fused_attr::kPrologue, "") ||
      input(gate, 4) != input(up, 4) || input(gate, 5) != input(up, 5) ||
      gate.attr_float(fused_attr::kPrologueEps, 0) != up.attr_float(fused_attr::kPrologueEps, 0))
    return "their norm prologues differ";
  return "";
}

Legality swiglu_legality(const Graph& g, const Node& gate, const Node& up) {
  const std::string& y = gate.outputs.at(0);
  if (is_graph_output(g, y)) return Legality::decline("gate output " + y + " is a graph output");
  if (g.consumers(y).size() != 1)
    return Legality::decline("gate output " + y + " has another reader (" + std::to_string(g.consumers(y).size()) +
                             " readers): it must reach DDR");
  const Tensor& wg = g.tensor(gate.inputs[1]);
  const Tensor& wu = g.tensor(up.inputs[1]);
  const Tensor& out = g.tensor(up.outputs.at(0));
  if (wg.shape != wu.shape || !g.tensor(y).shape_known() || g.tensor(y).shape != out.shape)
    return Legality::decline("shapes differ: gate weights " + shape_string(wg.shape) + " -> " +
                             shape_string(g.tensor(y).shape) + ", up weights " + shape_string(wu.shape) + " -> " +
                             shape_string(out.shape));
  if (gate.inputs[0] != up.inputs[0])
    return Legality::decline("the GEMMs read different inputs (" + gate.inputs[0] + " vs " + up.inputs[0] + ")");
  if (const std::string p = attribute_problem(gate, up); !p.empty()) return Legality::decline(p);
  if (g.tensor(y).quant || out.quant) return Legality::decline("quantised output: int8 has no rule for a dual GEMM");
  return Legality::ok("gate " + gate.name + " computed per tile into SRAM, x tile shared");
}

}  // namespace

std::vector<Candidate> FuseSwiglu::match(const Graph& graph) const {
  std::vector<Candidate> out;
  for (const Node& up : graph.nodes) {
    const std::string y = gate_operand(up);
    if (y.empty() || !swiglu_weight_gemm(graph, up)) continue;
    const auto p = graph.producer(y);
    if (!p) continue;
    const Node& gate = graph.nodes[*p];
    if (!swiglu_weight_gemm(graph, gate) || gate.attr_string(fused_attr::kAct, "") != "silu") continue;
    out.push_back({up.name, {up.name, gate.name}, "silu(" + gate.name + ") * " + up.name});
  }
  return out;
}

Legality FuseSwiglu::check(const Graph& graph, const Candidate& c) const {
  const long ui = find_node(graph, c.nodes[0]), gi = find_node(graph, c.nodes[1]);
  if (ui < 0 || gi < 0) return Legality::decline("the pair changed (an earlier rewrite)");
  return swiglu_legality(graph, graph.nodes[std::size_t(gi)], graph.nodes[std::size_t(ui)]);
}

void FuseSwiglu::rewrite(Graph& graph, const Candidate& c) const {
  const Node gate = graph.nodes[std::size_t(find_node(graph, c.nodes[1]))];
  Node& up = graph.nodes[std::size_t(find_node(graph, c.nodes[0]))];
  up.inputs.resize(fused_attr::kSwigluGateInput + 1);  // A, B, bias, "", gamma, beta, cos, sin, gate B
  up.inputs[3] = "";
  up.inputs[fused_attr::kSwigluGateInput] = gate.inputs[1];
  up.attrs.erase(fused_attr::kResidual);
  up.attrs.erase(fused_attr::kResidualMul);
  up.attrs[fused_attr::kSwiglu] = std::int64_t(1);
  graph.tensors.erase(gate.outputs[0]);
  merge_nodes(graph, c.nodes[0], {c.nodes[1]});
  // The gate's own covers (its SiLU, a norm it absorbed) follow it into the dual GEMM.
  Node& merged = graph.nodes[std::size_t(find_node(graph, c.nodes[0]))];
  const std::string more = gate.attr_string(fused_attr::kCovers, "");
  if (!more.empty()) merged.attrs[fused_attr::kCovers] = merged.attr_string(fused_attr::kCovers, "") + ";" + more;
}

NPU_REGISTER_PASS(FuseSwiglu, 745);

}  // namespace npu::compiler
