// Decomposed LayerNorm recognised as one node (recognise_layernorm.hpp).
#include "npu/compiler/transforms/canonicalize/recognise_layernorm.hpp"
#include "npu/compiler/transforms/pass_registry.hpp"

#include "npu/compiler/transforms/canonicalize/recognise_activations.hpp"

#include <cmath>
#include <set>

namespace npu::compiler {

namespace {

bool scalar(const Graph& g, const std::string& t, double& v) {
  if (!g.has_tensor(t) || !g.tensor(t).is_constant || g.tensor(t).elements() != 1) return false;
  const Tensor& x = g.tensor(t);
  v = x.float_data.empty() ? (x.int_data.empty() ? 0 : double(x.int_data[0])) : x.float_data[0];
  return !(x.float_data.empty() && x.int_data.empty());
}

// ReduceMean over exactly the last axis, keepdims.
bool mean_last(const Graph& g, const Node& n) {
  if (n.op_type != "ReduceMean" || n.inputs.empty() || n.attr_int("keepdims", 1) != 1) return false;
  const auto rank = std::int64_t(g.tensor(n.inputs[0]).shape.size());
  std::vector<std::int64_t> axes = n.attr_ints("axes");
  if (axes.empty() && n.inputs.size() > 1 && g.has_tensor(n.inputs[1]) && g.tensor(n.inputs[1]).is_constant)
    axes = g.tensor(n.inputs[1]).int_data;
  return axes.size() == 1 && (axes[0] == -1 || axes[0] == rank - 1);
}

// The other input of binary node n besides t.
std::string other(const Node& n, const std::string& t) {
  if (n.inputs.size() != 2) return "";
  return n.inputs[0] == t ? n.inputs[1] : (n.inputs[1] == t ? n.inputs[0] : "");
}

// A constant [D] (or [1,...,D]) vector for the last axis of size d.
bool row_vector(const Graph& g, const std::string& t, std::int64_t d) {
  if (!g.has_tensor(t) || !g.tensor(t).is_constant) return false;
  return g.tensor(t).elements() == d && !g.tensor(t).shape.empty() && g.tensor(t).shape.back() == d;
}

struct Match {
  std::vector<std::size_t> chain;
  std::string x, y, gamma, beta;
  double eps = 1e-5;
};

bool match(const Graph& g, std::size_t i, Match& m) {
  const Node& rm1 = g.nodes[i];
  if (!mean_last(g, rm1)) return false;
  m.x = rm1.inputs[0];
  const std::int64_t d = g.tensor(m.x).shape.back();
  const long sub = sole_reader(g, rm1.outputs[0]);
  if (sub < 0 || g.nodes[std::size_t(sub)].op_type != "Sub" || g.nodes[std::size_t(sub)].inputs.size() != 2 ||
      g.nodes[std::size_t(sub)].inputs[0] != m.x || g.nodes[std::size_t(sub)].inputs[1] != rm1.outputs[0])
    return false;
  const std::string dv = g.nodes[std::size_t(sub)].outputs[0];
  if (is_graph_output(g, dv)) return false;
  const auto dc = g.consumers(dv);
  if (dc.size() != 2) return false;
  long pw = -1, dvd = -1;
  for (std::size_t c : dc) {
    const Node& n = g.nodes[c];
    double e = 0;
    if (n.op_type == "Pow" && n.inputs.size() == 2 && n.inputs[0] == dv && scalar(g, n.inputs[1], e) && e == 2.0)
      pw = long(c);
    else if (n.op_type == "Div" && n.inputs.size() == 2 && n.inputs[0] == dv)
      dvd = long(c);
  }
  if (pw < 0 || dvd < 0) return false;
  const long rm2 = sole_reader(g, g.nodes[std::size_t(pw)].outputs[0]);
  if (rm2 < 0 || !mean_last(g, g.nodes[std::size_t(rm2)])) return false;
  const std::string var = g.nodes[std::size_t(rm2)].outputs[0];
  const long ae = sole_reader(g, var);
  if (ae < 0 || g.nodes[std::size_t(ae)].op_type != "Add" || !scalar(g, other(g.nodes[std::size_t(ae)], var), m.eps))
    return false;
  const long sq = sole_reader(g, g.nodes[std::size_t(ae)].outputs[0]);
  if (sq < 0 || g.nodes[std::size_t(sq)].op_type != "Sqrt") return false;
  if (sole_reader(g, g.nodes[std::size_t(sq)].outputs[0]) != dvd || g.nodes[std::size_t(dvd)].inputs[1] != g.nodes[std::size_t(sq)].outputs[0])
    return false;
  m.chain = {i, std::size_t(sub), std::size_t(pw), std::size_t(rm2), std::size_t(ae), std::size_t(sq), std::size_t(dvd)};
  m.y = g.nodes[std::size_t(dvd)].outputs[0];
  long next = sole_reader(g, m.y);
  if (next >= 0 && g.nodes[std::size_t(next)].op_type == "Mul" && row_vector(g, other(g.nodes[std::size_t(next)], m.y), d)) {
    m.gamma = other(g.nodes[std::size_t(next)], m.y);
    m.chain.push_back(std::size_t(next));
    m.y = g.nodes[std::size_t(next)].outputs[0];
    next = sole_reader(g, m.y);
  }
  if (next >= 0 && g.nodes[std::size_t(next)].op_type == "Add" && row_vector(g, other(g.nodes[std::size_t(next)], m.y), d)) {
    m.beta = other(g.nodes[std::size_t(next)], m.y);
    m.chain.push_back(std::size_t(next));
    m.y = g.nodes[std::size_t(next)].outputs[0];
  }
  return true;
}

}  // namespace

int recognise_layernorm(Graph& graph) {
  int found = 0;
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    Match m;
    if (!match(graph, i, m)) continue;
    Node ln;
    ln.name = graph.nodes[i].name;
    ln.op_type = "LayerNormalization";
    const std::int64_t d = graph.tensor(m.x).shape.back();
    if (m.gamma.empty()) {  // LayerNormalization needs a scale: ones
      m.gamma = ln.name + ".gamma_ones";
      Tensor& t = graph.tensors[m.gamma];
      t.name = m.gamma;
      t.shape = {d};
      t.is_constant = true;
      t.float_data.assign(std::size_t(d), 1.0f);
    }
    ln.inputs = {m.x, m.gamma};
    if (!m.beta.empty()) ln.inputs.push_back(m.beta);
    ln.outputs = {m.y};
    ln.attrs["axis"] = std::int64_t{-1};
    ln.attrs["epsilon"] = float(m.eps);
    replace_chain(graph, m.chain, std::move(ln));
    ++found;
    i = std::size_t(-1);  // indices moved: scan again from the start
  }
  return found;
}

// ---- the pass ----------------------------------------------------------------------------

/// recognise-layernorm: decomposed LayerNormalization chains become one node.
class RecogniseLayerNorm : public ImportPass {
 public:
  std::string name() const override { return "recognise-layernorm"; }
  std::string description() const override {
    return "recognise decomposed LayerNormalization (ReduceMean, Sub, Pow, Sqrt, Div, Mul, Add) as one node";
  }
  std::vector<Decision> run(Graph& graph, const PassContext& ctx) const override {
    return {summary_decision(name(), ctx.model,
                             "recognised " + std::to_string(recognise_layernorm(graph)) + " LayerNorm chain(s)")};
  }
};

NPU_REGISTER_PASS(RecogniseLayerNorm, 400);

}  // namespace npu::compiler
