// Decomposed RMSNorm recognised as one RMSNormalization node (recognise_rmsnorm.hpp).
#include "npu/compiler/transforms/canonicalize/recognise_rmsnorm.hpp"

#include <algorithm>
#include <cstdio>
#include <set>

#include "npu/compiler/ir/fused_attr.hpp"
#include "npu/compiler/transforms/canonicalize/norm_factor.hpp"
#include "npu/compiler/transforms/canonicalize/recognise_activations.hpp"
#include "npu/compiler/transforms/pass_registry.hpp"

namespace npu::compiler {

namespace {

/// Node n squares a tensor: Pow(x, 2) or Mul(x, x); x receives it.
bool square_of(const Graph& g, const Node& n, std::string& x) {
  if (n.inputs.size() != 2) return false;
  if (n.op_type == "Mul" && n.inputs[0] == n.inputs[1]) {
    x = n.inputs[0];
    return true;
  }
  if (n.op_type != "Pow" || !g.has_tensor(n.inputs[1]) || !g.tensor(n.inputs[1]).is_constant) return false;
  const Tensor& e = g.tensor(n.inputs[1]);
  const double v = e.elements() != 1 ? 0 : !e.float_data.empty() ? e.float_data[0] : e.int_data.empty() ? 0 : double(e.int_data[0]);
  x = n.inputs[0];
  return v == 2.0;
}

/// The row statistic after ReduceMean node `rm`: its output (keepdims=1), or the output of the
/// one Unsqueeze of the last axis that reads it (keepdims=0, pushed onto `chain`).
std::string statistic(const Graph& g, std::size_t rm, bool keepdims, std::vector<std::size_t>& chain) {
  const std::string& ms = g.nodes[rm].outputs[0];
  if (keepdims) return ms;
  const long u = sole_reader(g, ms);
  if (u < 0 || g.nodes[std::size_t(u)].op_type != "Unsqueeze") return "";
  const Node& un = g.nodes[std::size_t(u)];
  std::vector<std::int64_t> axes = un.attr_ints("axes");
  if (axes.empty() && un.inputs.size() > 1 && g.has_tensor(un.inputs[1]) && g.tensor(un.inputs[1]).is_constant)
    axes = g.tensor(un.inputs[1]).int_data;
  const auto rank = std::int64_t(g.tensor(un.outputs[0]).shape.size());
  if (axes.size() != 1 || (axes[0] != -1 && axes[0] != rank - 1)) return "";
  chain.push_back(std::size_t(u));
  return un.outputs[0];
}

struct RmsMatch {
  std::vector<std::size_t> chain;
  std::string x, y, gamma;
  double eps = 0;
};

/// An RMSNorm chain whose mean is ReduceMean node i: true with `m` filled, or false with `why`
/// set when it is RMSNorm-like but computes something else (empty: not RMSNorm-like at all).
bool match_rmsnorm(const Graph& g, const ReaderIndex& readers, std::size_t i, RmsMatch& m, std::string& why) {
  bool keepdims = true;
  if (!mean_over_last_axis(g, g.nodes[i], keepdims)) return false;
  const auto sq = g.producer(g.nodes[i].inputs[0]);
  if (!sq || !square_of(g, g.nodes[*sq], m.x) || sole_reader(g, g.nodes[i].inputs[0]) != long(i)) return false;
  const Tensor& xt = g.tensor(m.x);
  if (xt.type != ElemType::Float32 || xt.quant || xt.shape.empty() || xt.shape.back() <= 0) return false;
  m.chain = {*sq, i};
  const std::string stat = statistic(g, i, keepdims, m.chain);
  if (stat.empty()) return false;
  const NormFactor f = norm_factor(g, readers, stat, m.x);
  if (f.nodes.empty()) return false;
  if (!f.why.empty()) {
    why = f.why;
    return false;
  }
  m.eps = f.eps;
  m.chain.insert(m.chain.end(), f.nodes.begin(), f.nodes.end());
  m.y = f.y;
  const long next = sole_reader(g, m.y);
  if (next >= 0 && g.nodes[std::size_t(next)].op_type == "Mul") {
    const std::string gam = other_input(g.nodes[std::size_t(next)], m.y);
    if (gam != m.y && row_constant(g, gam, xt.shape.back())) {
      m.gamma = gam;
      m.chain.push_back(std::size_t(next));
      m.y = g.nodes[std::size_t(next)].outputs[0];
    }
  }
  return true;
}

/// A constant [D] holding gamma (a scalar or a [1, ..., D] row), or ones; returns its name.
/// A gamma without values (a zoo weight) gives a [D] constant without values.
std::string gamma_row(Graph& g, const std::string& name, const std::string& gamma, std::int64_t d) {
  std::vector<float> v(std::size_t(d), 1.0f);
  if (!gamma.empty() && g.tensor(gamma).float_data.empty()) v.clear();
  else if (!gamma.empty()) {
    const std::vector<float>& src = g.tensor(gamma).float_data;
    for (std::size_t k = 0; k < v.size(); ++k) v[k] = src.size() == 1 ? src[0] : src[k];
  }
  Tensor& t = g.tensors[name];
  t.name = name;
  t.shape = {d};
  t.is_constant = true;
  t.float_data = std::move(v);
  return name;
}

std::string describe(const Graph& g, const RmsMatch& m) {
  char eps[32];
  std::snprintf(eps, sizeof eps, "%g", m.eps);
  std::string ops;
  for (std::size_t i : m.chain) ops += (ops.empty() ? "" : ", ") + g.nodes[i].op_type;
  return std::string("RMSNorm (epsilon ") + eps + (m.gamma.empty() ? ", no gamma" : ", gamma " + m.gamma) + ") from " +
         std::to_string(m.chain.size()) + " nodes (" + ops + ")";
}

}  // namespace

int recognise_rmsnorm(Graph& graph, std::vector<Decision>* decisions) {
  int found = 0;
  std::set<std::string> declined;
  ReaderIndex readers = build_reader_index(graph);
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    RmsMatch m;
    std::string why;
    Decision d;
    d.pass = "recognise-rmsnorm";
    if (!match_rmsnorm(graph, readers, i, m, why)) {
      if (!why.empty() && declined.insert(graph.nodes[i].name).second && decisions) {
        d.nodes = {graph.nodes[i].name};
        d.label = graph.nodes[i].name;
        d.reason = why + "; left as written";
        decisions->push_back(std::move(d));
      }
      continue;
    }
    std::sort(m.chain.begin(), m.chain.end());
    for (std::size_t k : m.chain) d.nodes.push_back(graph.nodes[k].name);
    d.label = m.x + " -> " + m.y;
    d.outcome = DecisionOutcome::Applied;
    d.verb = "recognised";
    d.reason = describe(graph, m);
    Node n;
    n.name = graph.nodes[m.chain.front()].name;
    n.op_type = "RMSNormalization";
    n.inputs = {m.x, gamma_row(graph, n.name + ".rms_gamma", m.gamma, graph.tensor(m.x).shape.back())};
    n.outputs = {m.y};
    n.attrs["axis"] = std::int64_t{-1};
    n.attrs["epsilon"] = float(m.eps);
    replace_chain(graph, m.chain, std::move(n));
    if (decisions) decisions->push_back(std::move(d));
    ++found;
    readers = build_reader_index(graph);
    i = std::size_t(-1);  // indices moved: scan again from the start
  }
  if (found) remove_unused_tensors(graph);
  return found;
}

// ---- the pass ----------------------------------------------------------------------------

/// recognise-rmsnorm: decomposed RMSNorm chains become one RMSNormalization node.
class RecogniseRmsNorm : public ImportPass {
 public:
  std::string name() const override { return "recognise-rmsnorm"; }
  std::string description() const override {
    return "recognise decomposed RMSNorm (x / sqrt(mean(x^2) + eps) * gamma, any spelling of the factor) as one "
           "RMSNormalization node";
  }
  std::vector<Decision> run(Graph& graph, const PassContext& ctx) const override {
    std::vector<Decision> out;
    const int n = recognise_rmsnorm(graph, &out);
    out.push_back(summary_decision(name(), ctx.model, "recognised " + std::to_string(n) + " RMSNorm chain(s)"));
    return out;
  }
};

NPU_REGISTER_PASS(RecogniseRmsNorm, 420);

}  // namespace npu::compiler
