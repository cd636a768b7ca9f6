// fuse-gemm-epilogue (fuse_gemm_epilogue.hpp): weight GEMM + Add / Mul -> the GEMM's epilogue.
#include "npu/compiler/transforms/fusion/fuse_gemm_epilogue.hpp"

#include "npu/compiler/transforms/pass_registry.hpp"

namespace npu::compiler {

namespace {

// A GEMM by constant weights: MatMul with a constant 2-D B (nn.Linear), or Gemm.
bool epilogue_weight_gemm(const Graph& g, const Node& n) {
  if (n.on_host || n.inputs.size() < 2 || n.inputs.size() > 3) return false;
  if (n.op_type == "Gemm") return true;
  if (n.op_type != "MatMul" || !g.has_tensor(n.inputs[1])) return false;
  const Tensor& b = g.tensor(n.inputs[1]);
  return b.is_constant && b.shape.size() == 2;
}

// The Add/Mul input that is not `x`.
const std::string& other_of(const Node& op, const std::string& x) { return op.inputs[0] == x ? op.inputs[1] : op.inputs[0]; }

Legality epilogue_legality(const Graph& g, const Node& gemm, const Node& op) {
  const std::string& x = gemm.outputs.at(0);
  const std::string act = gemm.attr_string(fused_attr::kAct, "");
  if (!act.empty())
    return Legality::decline("activation " + act + " already fused into " + gemm.name + " (the epilogue applies the " +
                             (op.op_type == "Mul" ? "gate" : "residual") + " before the activation)");
  if (gemm.attr_int(fused_attr::kResidual, 0) != 0) return Legality::decline(gemm.name + " already reads a residual");
  if (op.inputs[0] == op.inputs[1]) return Legality::decline(op.op_type + " of a tensor with itself");
  if (is_graph_output(g, x)) return Legality::decline("GEMM output is a graph output");
  if (g.consumers(x).size() != 1) return Legality::decline("GEMM output " + x + " has other readers");
  if (g.tensor(x).quant)
    return Legality::decline("GEMM output '" + x + "' is quantised: int8 has no rule for an epilogue " + op.op_type);
  const Tensor& a = g.tensor(x);
  const Tensor& b = g.tensor(other_of(op, x));
  if (!a.shape_known() || a.shape != b.shape)
    return Legality::decline("shape mismatch " + shape_string(a.shape) + " vs " + shape_string(b.shape) +
                             " (a broadcasting " + op.op_type + " is not fused)");
  return Legality::ok();
}

}  // namespace

std::vector<Candidate> FuseGemmEpilogue::match(const Graph& graph) const {
  std::vector<Candidate> out;
  for (const Node& op : graph.nodes) {
    if ((op.op_type != "Add" && op.op_type != "Mul") || op.inputs.size() != 2 || op.outputs.empty() || op.on_host)
      continue;
    std::vector<std::size_t> gemms;  // producers that are weight GEMMs, later-produced first
    bool constant_input = false;
    for (const auto& in : op.inputs) {
      if (in.empty() || !graph.has_tensor(in) || graph.tensor(in).is_constant) constant_input = true;
      const auto p = in.empty() ? std::nullopt : graph.producer(in);
      if (p && epilogue_weight_gemm(graph, graph.nodes[*p])) gemms.push_back(*p);
    }
    if (constant_input || gemms.empty()) continue;
    if (gemms.size() == 2 && gemms[1] > gemms[0]) std::swap(gemms[0], gemms[1]);
    std::size_t chosen = gemms[0];
    if (gemms.size() == 2 && !epilogue_legality(graph, graph.nodes[gemms[0]], op).legal &&
        epilogue_legality(graph, graph.nodes[gemms[1]], op).legal)
      chosen = gemms[1];
    const Node& gemm = graph.nodes[chosen];
    out.push_back({gemm.name, {gemm.name, op.name}, gemm.name + (op.op_type == "Mul" ? " * " : " + ") + op.name});
  }
  return out;
}

Legality FuseGemmEpilogue::check(const Graph& graph, const Candidate& c) const {
  const long gi = find_node(graph, c.nodes[0]), oi = find_node(graph, c.nodes[1]);
  if (gi < 0 || oi < 0) return Legality::decline("the pair changed (an earlier rewrite)");
  return epilogue_legality(graph, graph.nodes[std::size_t(gi)], graph.nodes[std::size_t(oi)]);
}

void FuseGemmEpilogue::rewrite(Graph& graph, const Candidate& c) const {
  Node& gemm = graph.nodes[std::size_t(find_node(graph, c.nodes[0]))];
  const Node op = graph.nodes[std::size_t(find_node(graph, c.nodes[1]))];
  const std::string x = gemm.outputs[0];
  gemm.inputs.resize(4);  // A, B, bias or "", the fused operand
  gemm.inputs[3] = other_of(op, x);
  gemm.attrs[fused_attr::kResidual] = std::int64_t(1);
  if (op.op_type == "Mul") gemm.attrs[fused_attr::kResidualMul] = std::int64_t(1);
  gemm.outputs[0] = op.outputs[0];
  graph.tensors.erase(x);
  merge_nodes(graph, c.nodes[0], {c.nodes[1]});
}

NPU_REGISTER_PASS(FuseGemmEpilogue, 720);

}  // namespace npu::compiler
