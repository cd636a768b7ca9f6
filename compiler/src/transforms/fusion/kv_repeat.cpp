// Grouped-query attention's head repeat, recognised by value (kv_repeat.hpp).
#include "npu/compiler/transforms/fusion/kv_repeat.hpp"

#include "npu/compiler/ir/fused_attr.hpp"

namespace npu::compiler {

namespace {

using Shape = std::vector<std::int64_t>;

const Node* made_by(const Graph& g, const std::string& t, const char* op) {
  const auto p = g.producer(t);
  return p && g.nodes[*p].op_type == op ? &g.nodes[*p] : nullptr;
}

const std::vector<std::int64_t>* constant_ints(const Graph& g, const Node& n, std::size_t i) {
  if (n.inputs.size() <= i || !g.has_tensor(n.inputs[i])) return nullptr;
  const Tensor& t = g.tensor(n.inputs[i]);
  return t.is_constant && !t.int_data.empty() ? &t.int_data : nullptr;
}

// "" when the Reshape's target values give `want` from input shape `in` (0 copies unless
// allowzero, one -1 takes the rest), else why not.
std::string reshape_target_problem(const Graph& g, const Node& r, const Shape& in, const Shape& want) {
  const auto* spec = constant_ints(g, r, 1);
  if (!spec) return r.name + "'s target shape is not a constant with values";
  bool ok = spec->size() == want.size();
  int inferred = 0;
  for (std::size_t i = 0; ok && i < spec->size(); ++i) {
    const std::int64_t d = (*spec)[i];
    if (d == -1) ++inferred;
    else if (d == 0 && r.attr_int("allowzero", 0) == 0) ok = i < in.size() && in[i] == want[i];
    else ok = d == want[i];
  }
  return ok && inferred <= 1 ? "" : r.name + "'s target " + shape_string(*spec) + " is not " + shape_string(want);
}

// "" when the Expand's shape values broadcast `in` [B, Hkv, 1, S, d] to exactly `want`.
std::string expand_shape_problem(const Graph& g, const Node& e, const Shape& in, const Shape& want) {
  const auto* s = constant_ints(g, e, 1);
  if (!s) return e.name + "'s shape is not a constant with values";
  bool ok = s->size() <= in.size();
  for (std::size_t i = 0; ok && i < in.size(); ++i) {
    const std::int64_t rank_gap = std::int64_t(in.size() - s->size());
    const std::int64_t si = std::int64_t(i) >= rank_gap ? (*s)[i - std::size_t(rank_gap)] : 1;
    const std::int64_t out = in[i] == 1 ? si : (si == 1 || si == in[i]) ? in[i] : -1;
    ok = out == want[i];
  }
  return ok ? "" : e.name + "'s shape " + shape_string(*s) + " does not repeat " + shape_string(in) + " to " +
                       shape_string(want);
}

// The 5-D tensor u = X with a unit axis inserted at 2 (Unsqueeze axes [2], or a Reshape that
// only inserts it): X, or "" with `why`.
std::string unit_axis_source(const Graph& g, const std::string& u, std::string& why) {
  const auto p = g.producer(u);
  const Node* n = p ? &g.nodes[*p] : nullptr;
  if (!n || (n->op_type != "Unsqueeze" && n->op_type != "Reshape") || !g.tensor(n->inputs[0]).shape_known()) {
    why = u + " is not an Unsqueeze of the un-repeated heads";
    return "";
  }
  const Shape& x = g.tensor(n->inputs[0]).shape;
  const Shape& s = g.tensor(u).shape;
  std::vector<std::int64_t> axes = n->attr_ints("axes");
  if (const auto* in_axes = constant_ints(g, *n, 1); n->op_type == "Unsqueeze" && in_axes) axes = *in_axes;
  const bool axis2 = n->op_type == "Reshape" || axes == std::vector<std::int64_t>{2} || axes == std::vector<std::int64_t>{-3};
  if (!axis2 || x.size() != 4 || s != Shape{x[0], x[1], 1, x[2], x[3]}) {
    why = n->name + " does not insert a unit axis at 2 into " + shape_string(x);
    return "";
  }
  return n->inputs[0];
}

// "" when every node of the repeat runs on the NPU and each output has one reader and is no
// graph output (the next node; the Reshape's: the attention's Transpose or P V MatMul), so the
// attention may absorb them, else why not.
std::string absorb_problem(const Graph& g, const KvRepeat& r) {
  for (const std::string& name : r.nodes) {
    const Node& n = g.nodes[std::size_t(find_node(g, name))];
    if (n.on_host) return name + " runs on the host";
    if (sole_reader(g, n.outputs[0]) < 0)
      return n.outputs[0] + " has other readers: the expanded heads are read as they are";
  }
  return "";
}

}  // namespace

KvRepeat find_kv_repeat(const Graph& graph, const std::string& t) {
  KvRepeat r;
  const Node* reshape = made_by(graph, t, "Reshape");
  const Node* expand = reshape ? made_by(graph, reshape->inputs[0], "Expand") : nullptr;
  if (!expand) return r;
  const Shape& e_out = graph.tensor(expand->outputs[0]).shape;
  const Shape& out = graph.tensor(t).shape;
  if (e_out.size() != 5 || out.size() != 4 || !graph.tensor(expand->outputs[0]).shape_known()) {
    r.problem = expand->name + " " + shape_string(e_out) + " is not a 5-D head repeat [B, Hkv, g, S, d]";
    return r;
  }
  const std::string x = unit_axis_source(graph, expand->inputs[0], r.problem);
  if (x.empty()) return r;
  const Shape& u = graph.tensor(expand->inputs[0]).shape;
  const Shape want_e{u[0], u[1], e_out[2], u[3], u[4]};
  const Shape want_r{u[0], u[1] * e_out[2], u[3], u[4]};
  r.problem = expand_shape_problem(graph, *expand, u, want_e);
  if (r.problem.empty()) r.problem = reshape_target_problem(graph, *reshape, e_out, want_r);
  if (!r.problem.empty()) return r;
  r.source = x;
  r.group = e_out[2];
  r.nodes = {graph.nodes[*graph.producer(expand->inputs[0])].name, expand->name, reshape->name};
  r.problem = absorb_problem(graph, r);
  return r;
}

}  // namespace npu::compiler
