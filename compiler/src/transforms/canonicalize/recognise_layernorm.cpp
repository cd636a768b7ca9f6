// Decomposed LayerNorm recognised as one node (recognise_layernorm.hpp).
#include "npu/compiler/transforms/canonicalize/recognise_layernorm.hpp"
#include "npu/compiler/transforms/pass_registry.hpp"

#include "npu/compiler/ir/fused_attr.hpp"
#include "npu/compiler/transforms/canonicalize/norm_factor.hpp"
#include "npu/compiler/transforms/canonicalize/recognise_activations.hpp"

#include <cmath>
#include <set>

namespace npu::compiler {

namespace {

// ReduceMean over exactly the last axis, keepdims.
bool mean_last(const Graph& g, const Node& n) {
  bool keepdims = false;
  return mean_over_last_axis(g, n, keepdims) && keepdims;
}

// Node n squares `t`: Pow(t, 2) or Mul(t, t).
bool squares(const Graph& g, const Node& n, const std::string& t) {
  if (n.inputs.size() != 2 || n.inputs[0] != t) return false;
  if (n.op_type == "Mul") return n.inputs[1] == t;
  if (n.op_type != "Pow" || !g.has_tensor(n.inputs[1]) || !g.tensor(n.inputs[1]).is_constant) return false;
  const Tensor& e = g.tensor(n.inputs[1]);
  if (e.elements() != 1) return false;
  return (!e.float_data.empty() ? double(e.float_data[0]) : e.int_data.empty() ? 0.0 : double(e.int_data[0])) == 2.0;
}

struct Match {
  std::vector<std::size_t> chain;
  std::string x, y, gamma, beta;
  double eps = 1e-5;
};

// The centred row of LayerNorm whose mean is ReduceMean node i: Sub(x, mean) read by the
// square and the node applying the factor (two readers), or -1.
long centred(const Graph& g, std::size_t i, Match& m) {
  const Node& rm1 = g.nodes[i];
  if (!mean_last(g, rm1)) return -1;
  m.x = rm1.inputs[0];
  const long sub = sole_reader(g, rm1.outputs[0]);
  if (sub < 0 || g.nodes[std::size_t(sub)].op_type != "Sub" || g.nodes[std::size_t(sub)].inputs.size() != 2 ||
      g.nodes[std::size_t(sub)].inputs[0] != m.x || g.nodes[std::size_t(sub)].inputs[1] != rm1.outputs[0])
    return -1;
  const std::string& dv = g.nodes[std::size_t(sub)].outputs[0];
  if (is_graph_output(g, dv) || g.consumers(dv).size() != 2) return -1;
  return sub;
}

// LayerNorm chain from ReduceMean node i: true with m filled; false with `why` set when the
// factor is no 1/sqrt(var + eps) (empty: not a LayerNorm-like chain).
bool match(const Graph& g, const ReaderIndex& readers, std::size_t i, Match& m, std::string& why) {
  const long sub = centred(g, i, m);
  if (sub < 0) return false;
  const std::string dv = g.nodes[std::size_t(sub)].outputs[0];
  const std::int64_t d = g.tensor(m.x).shape.back();
  long sq = -1;
  for (std::size_t c : g.consumers(dv))
    if (squares(g, g.nodes[c], dv)) sq = long(c);
  if (sq < 0) return false;
  const long rm2 = sole_reader(g, g.nodes[std::size_t(sq)].outputs[0]);
  if (rm2 < 0 || !mean_last(g, g.nodes[std::size_t(rm2)])) return false;
  const NormFactor f = norm_factor(g, readers, g.nodes[std::size_t(rm2)].outputs[0], dv);
  if (f.nodes.empty()) return false;
  if (!f.why.empty()) {
    why = f.why;
    return false;
  }
  m.eps = f.eps;
  m.chain = {i, std::size_t(sub), std::size_t(sq), std::size_t(rm2)};
  m.chain.insert(m.chain.end(), f.nodes.begin(), f.nodes.end());
  m.y = f.y;
  long next = sole_reader(g, m.y);
  if (next >= 0 && g.nodes[std::size_t(next)].op_type == "Mul" && row_constant(g, other_input(g.nodes[std::size_t(next)], m.y), d) &&
      g.tensor(other_input(g.nodes[std::size_t(next)], m.y)).elements() == d) {
    m.gamma = other_input(g.nodes[std::size_t(next)], m.y);
    m.chain.push_back(std::size_t(next));
    m.y = g.nodes[std::size_t(next)].outputs[0];
    next = sole_reader(g, m.y);
  }
  if (next >= 0 && g.nodes[std::size_t(next)].op_type == "Add" && row_constant(g, other_input(g.nodes[std::size_t(next)], m.y), d) &&
      g.tensor(other_input(g.nodes[std::size_t(next)], m.y)).elements() == d) {
    m.beta = other_input(g.nodes[std::size_t(next)], m.y);
    m.chain.push_back(std::size_t(next));
    m.y = g.nodes[std::size_t(next)].outputs[0];
  }
  return true;
}

}  // namespace

int recognise_layernorm(Graph& graph, std::vector<Decision>* decisions) {
  int found = 0;
  ReaderIndex readers = build_reader_index(graph);
  std::set<std::string> declined;
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    Match m;
    std::string why;
    if (!match(graph, readers, i, m, why)) {
      if (!why.empty() && decisions && declined.insert(graph.nodes[i].name).second) {
        Decision d;
        d.pass = "recognise-layernorm";
        d.nodes = {graph.nodes[i].name};
        d.label = graph.nodes[i].name;
        d.reason = why + "; left as written";
        decisions->push_back(std::move(d));
      }
      continue;
    }
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
    readers = build_reader_index(graph);
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
    return "recognise decomposed LayerNormalization (ReduceMean, Sub, square, ReduceMean, any spelling of "
           "1/sqrt(var + eps), Mul, Add) as one node";
  }
  std::vector<Decision> run(Graph& graph, const PassContext& ctx) const override {
    std::vector<Decision> out;
    const int n = recognise_layernorm(graph, &out);
    out.push_back(summary_decision(name(), ctx.model, "recognised " + std::to_string(n) + " LayerNorm chain(s)"));
    return out;
  }
};

NPU_REGISTER_PASS(RecogniseLayerNorm, 400);

}  // namespace npu::compiler
