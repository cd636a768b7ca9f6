// fuse-norm-prologue (fuse_norm_prologue.hpp): a row norm -> the prologue of the GEMMs reading it.
#include "npu/compiler/transforms/fusion/fuse_norm_prologue.hpp"

#include "npu/compiler/transforms/pass_registry.hpp"

namespace npu::compiler {

namespace {

bool is_norm(const Node& n) { return n.op_type == "RMSNormalization" || n.op_type == "LayerNormalization"; }

// A GEMM by constant weights: MatMul with a constant 2-D B (nn.Linear), or Gemm.
bool prologue_weight_gemm(const Graph& g, const Node& n) {
  if (n.on_host || n.inputs.size() < 2) return false;
  if (n.op_type == "Gemm") return true;
  if (n.op_type != "MatMul" || !g.has_tensor(n.inputs[1])) return false;
  const Tensor& b = g.tensor(n.inputs[1]);
  return b.is_constant && b.shape.size() == 2;
}

bool constant(const Graph& g, const std::string& t) { return !t.empty() && g.has_tensor(t) && g.tensor(t).is_constant; }

// Why reader `r` cannot take the norm output `y` as a prologue, or "".
std::string reader_problem(const Graph& g, const Node& r, const std::string& y) {
  if (!prologue_weight_gemm(g, r)) return "its output also feeds " + r.name + " (" + r.op_type + ", not a weight GEMM)";
  for (std::size_t i = 1; i < r.inputs.size(); ++i)
    if (r.inputs[i] == y) return r.name + " reads it as more than its A operand";
  if (r.op_type == "Gemm" && r.attr_int("transA", 0) != 0) return r.name + " transposes A (transA=1)";
  if (!r.attr_string(fused_attr::kPrologue, "").empty()) return r.name + " already has a prologue";
  return "";
}

Legality prologue_legality(const Graph& g, const Node& norm) {
  const std::string& x = norm.inputs.at(0);
  const std::string& y = norm.outputs.at(0);
  for (std::size_t i = 1; i < norm.outputs.size(); ++i)
    if (!norm.outputs[i].empty()) return Legality::decline(norm.op_type + " with its Mean/InvStdDev outputs");
  if (!g.has_tensor(x) || !g.tensor(x).shape_known() || g.tensor(x).shape.size() < 2)
    return Legality::decline("input shape unknown or not a matrix");
  const std::int64_t rank = std::int64_t(g.tensor(x).shape.size());
  std::int64_t axis = norm.attr_int("axis", -1);
  if (axis < 0) axis += rank;
  if (axis != rank - 1)
    return Legality::decline("normalises from axis " + std::to_string(axis) + ", not the last (K) axis alone");
  if (norm.inputs.size() < 2 || !constant(g, norm.inputs[1])) return Legality::decline("scale (gamma) is not a constant");
  if (norm.op_type == "LayerNormalization" && (norm.inputs.size() < 3 || !constant(g, norm.inputs[2])))
    return Legality::decline("LayerNormalization without a constant B (beta)");
  if (!norm.attr_string(fused_attr::kResidualIn, "").empty())
    return Legality::decline(norm.name + " already adds a residual (fuse-add-layernorm)");
  if (is_graph_output(g, y)) return Legality::decline("its output is a graph output");
  if (g.tensor(y).quant) return Legality::decline("its output is quantised: int8 has no rule for a norm prologue");
  const std::vector<std::size_t> readers = g.consumers(y);
  if (readers.empty()) return Legality::decline("nothing reads its output");
  for (std::size_t r : readers)
    if (auto why = reader_problem(g, g.nodes[r], y); !why.empty()) return Legality::decline(why);
  return Legality::ok(std::to_string(readers.size()) + " GEMM(s) normalise their A tiles");
}

}  // namespace

std::vector<Candidate> FuseNormPrologue::match(const Graph& graph) const {
  std::vector<Candidate> out;
  for (const Node& norm : graph.nodes) {
    if (!is_norm(norm) || norm.on_host || norm.inputs.empty() || norm.outputs.empty()) continue;
    std::string anchor, readers;
    for (std::size_t r : graph.consumers(norm.outputs[0])) {
      const Node& rn = graph.nodes[r];
      if (anchor.empty() && prologue_weight_gemm(graph, rn)) anchor = rn.name;
      readers += (readers.empty() ? "" : ", ") + rn.name;
    }
    if (anchor.empty()) continue;
    out.push_back({anchor, {anchor, norm.name}, norm.name + " -> prologue of " + readers});
  }
  return out;
}

Legality FuseNormPrologue::check(const Graph& graph, const Candidate& c) const {
  const long ni = find_node(graph, c.nodes[1]);
  if (ni < 0 || find_node(graph, c.nodes[0]) < 0) return Legality::decline("the nodes changed (an earlier rewrite)");
  return prologue_legality(graph, graph.nodes[std::size_t(ni)]);
}

void FuseNormPrologue::rewrite(Graph& graph, const Candidate& c) const {
  const Node norm = graph.nodes[std::size_t(find_node(graph, c.nodes[1]))];
  const std::string& y = norm.outputs[0];
  for (std::size_t r : graph.consumers(y)) {
    Node& gemm = graph.nodes[r];
    gemm.inputs[0] = norm.inputs[0];
    gemm.inputs.resize(6);  // A, B, bias or "", residual or "", gamma, beta or ""
    gemm.inputs[4] = norm.inputs[1];
    gemm.inputs[5] = norm.op_type == "LayerNormalization" ? norm.inputs[2] : "";
    gemm.attrs[fused_attr::kPrologue] = norm.op_type;
    gemm.attrs[fused_attr::kPrologueEps] = norm.attr_float("epsilon", 1e-5f);
  }
  graph.tensors.erase(y);
  merge_nodes(graph, c.nodes[0], {c.nodes[1]});
}

NPU_REGISTER_PASS(FuseNormPrologue, 730);

}  // namespace npu::compiler
