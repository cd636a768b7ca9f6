// Recognition of activations exported in decomposed form, by the function the subgraph
// computes (recognise_activations.hpp, scalar_function.hpp).
#include "npu/compiler/transforms/canonicalize/recognise_activations.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "npu/compiler/ir/fused_attr.hpp"
#include "npu/compiler/transforms/canonicalize/scalar_function.hpp"
#include "npu/compiler/transforms/pass_registry.hpp"

namespace npu::compiler {

namespace {

/// What a region computes, as the node(s) that replace it. `op` empty: no known activation.
struct Identified {
  std::string op;     ///< Gelu, HardSwish, HardSigmoid, Clip, Relu, LeakyRelu, Sigmoid (SiLU: Sigmoid then Mul), Mish
  std::string label;  ///< what --explain calls it: "GELU (tanh form)"
  std::map<std::string, AttrValue> attrs;
};

double gelu_erf(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }
double gelu_tanh(double x) {
  return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
}
double hard_swish(double x) { return x * std::max(0.0, std::min(1.0, x / 6.0 + 0.5)); }
double silu(double x) { return x / (1.0 + std::exp(-x)); }
double mish(double x) { return x * std::tanh(x > 30 ? x : std::log1p(std::exp(x))); }

/// f equals `ref` at every probe within 1e-5 (1 + |ref|): far below the 4.7e-4 between the
/// erf and tanh GELUs, far above the fp32 rounding of an export's constants (~1e-7).
bool same(const std::vector<double>& f, double (*ref)(double)) {
  const auto& p = probe_points();
  for (std::size_t k = 0; k < p.size(); ++k) {
    const double r = ref(p[k]);
    if (!(std::fabs(f[k] - r) <= 1e-5 * (1.0 + std::fabs(r)))) return false;
  }
  return true;
}

/// max(0, min(1, a x + b)) for the a, b read off two probes strictly inside (0, 1).
bool hard_sigmoid_fit(const std::vector<double>& f, float& alpha, float& beta) {
  const auto& p = probe_points();
  long lo = -1, hi = -1;
  for (std::size_t k = 0; k < p.size(); ++k)
    if (f[k] > 1e-3 && f[k] < 1 - 1e-3) {
      if (lo < 0 || p[k] < p[std::size_t(lo)]) lo = long(k);
      if (hi < 0 || p[k] > p[std::size_t(hi)]) hi = long(k);
    }
  if (lo < 0 || p[std::size_t(hi)] - p[std::size_t(lo)] < 0.1) return false;
  const double a = (f[std::size_t(hi)] - f[std::size_t(lo)]) / (p[std::size_t(hi)] - p[std::size_t(lo)]);
  const double b = f[std::size_t(lo)] - a * p[std::size_t(lo)];
  for (std::size_t k = 0; k < p.size(); ++k) {
    const double r = std::max(0.0, std::min(1.0, a * p[k] + b));
    if (!(std::fabs(f[k] - r) <= 1e-5 * (1.0 + r))) return false;
  }
  alpha = float(a), beta = float(b);
  return a > 0;
}

/// min(max(x, lo), hi) with lo and hi read off the tails (+-1000); a bound not seen there
/// is absent. Identity (no bound) is no match.
bool clip_fit(const std::vector<double>& f, Identified& id) {
  const auto& p = probe_points();
  const auto [kmin, kmax] = std::minmax_element(p.begin(), p.end());
  const double lo = f[std::size_t(kmin - p.begin())], hi = f[std::size_t(kmax - p.begin())];
  const bool has_lo = lo > *kmin + 1e-6, has_hi = hi < *kmax - 1e-6;
  if (!has_lo && !has_hi) return false;
  for (std::size_t k = 0; k < p.size(); ++k) {
    const double r = std::min(has_hi ? hi : INFINITY, std::max(has_lo ? lo : -INFINITY, p[k]));
    if (!(std::fabs(f[k] - r) <= 1e-5 * (1.0 + std::fabs(r)))) return false;
  }
  if (has_lo && lo == 0.0 && !has_hi) {
    id = {"Relu", "ReLU", {}};
    return true;
  }
  id = {"Clip", has_lo && has_hi && lo == 0.0 && hi == 6.0 ? "ReLU6" : "Clip", {}};
  if (has_lo) id.attrs["min"] = float(lo);
  if (has_hi) id.attrs["max"] = float(hi);
  return true;
}

/// x >= 0 ? x : a x, with a read off the probe at -1000 (the LeakyReLU that tf2onnx and Keras
/// write as Max(x, a x), or as Relu(x) - a Relu(-x)). a = 1 is the identity and a = 0 the ReLU
/// (clip_fit takes that one first): neither is a match.
bool leaky_relu_fit(const std::vector<double>& f, float& alpha) {
  const auto& p = probe_points();
  const auto kmin = std::size_t(std::min_element(p.begin(), p.end()) - p.begin());
  const double a = f[kmin] / p[kmin];
  if (!std::isfinite(a) || std::fabs(a - 1.0) < 1e-6 || std::fabs(a) < 1e-9) return false;
  for (std::size_t k = 0; k < p.size(); ++k) {
    const double r = p[k] >= 0 ? p[k] : a * p[k];
    if (!(std::fabs(f[k] - r) <= 1e-5 * (1.0 + std::fabs(r)))) return false;
  }
  alpha = float(a);
  return true;
}

/// The activation region r computes, if any (op empty: none).
Identified identify(const Graph& g, const ScalarRegion& r) {
  std::vector<double> f;
  for (double v : probe_points()) f.push_back(evaluate(g, r, v));
  Identified id;
  float alpha = 0, beta = 0;
  if (same(f, gelu_erf)) id = {"Gelu", "GELU (erf form)", {}};
  else if (same(f, gelu_tanh)) id = {"Gelu", "GELU (tanh form)", {{"approximate", std::string("tanh")}}};
  else if (same(f, hard_swish)) id = {"HardSwish", "HardSwish", {}};
  else if (same(f, silu)) id = {"Sigmoid", "SiLU", {}};
  else if (same(f, mish)) id = {"Mish", "Mish", {}};
  else if (clip_fit(f, id)) {
  } else if (leaky_relu_fit(f, alpha))
    id = {"LeakyRelu", "LeakyReLU", {{"alpha", alpha}}};
  else if (hard_sigmoid_fit(f, alpha, beta))
    id = {"HardSigmoid", "HardSigmoid", {{"alpha", alpha}, {"beta", beta}}};
  return id;
}

/// The canonical SiLU pair already: Sigmoid(x) and Mul of x and it (fuse-activation's form).
bool canonical_silu(const Graph& g, const ScalarRegion& r) {
  if (r.nodes.size() != 2) return false;
  const Node& s = g.nodes[r.nodes[0]];
  const Node& m = g.nodes[r.nodes[1]];
  return s.op_type == "Sigmoid" && m.op_type == "Mul" && s.inputs[0] == r.x &&
         ((m.inputs[0] == r.x && m.inputs[1] == s.outputs[0]) || (m.inputs[1] == r.x && m.inputs[0] == s.outputs[0]));
}

std::string op_list(const Graph& g, const ScalarRegion& r) {
  std::string s;
  for (std::size_t i : r.nodes) s += (s.empty() ? "" : ", ") + g.nodes[i].op_type;
  return s;
}

/// Replaces region r by what `id` names (SiLU: a Sigmoid then the Mul, fuse-activation's form).
void rewrite(Graph& g, const ScalarRegion& r, const Identified& id) {
  Node n;
  n.name = g.nodes[r.nodes.front()].name;
  n.op_type = id.op == "Sigmoid" ? "Mul" : id.op;
  n.attrs = id.attrs;
  n.outputs = {r.y};
  if (id.op != "Sigmoid") {
    n.inputs = {r.x};
    replace_chain(g, r.nodes, std::move(n));
    return;
  }
  Node s;
  s.name = n.name;
  s.op_type = "Sigmoid";
  s.inputs = {r.x};
  s.outputs = {r.y + "_sigmoid"};
  Tensor t = g.tensor(r.y);
  t.name = s.outputs[0];
  g.tensors[t.name] = t;
  n.name += "/silu_mul";
  n.inputs = {r.x, s.outputs[0]};
  replace_chain(g, r.nodes, n);
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    if (g.nodes[i].name == n.name && g.nodes[i].outputs == n.outputs) {
      g.nodes.insert(g.nodes.begin() + long(i), std::move(s));
      break;
    }
}

/// Tensors that may root a region, in node order: the non-constant inputs of nodes.
std::vector<std::string> roots(const Graph& g) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const Node& n : g.nodes)
    for (const std::string& t : n.inputs)
      if (!t.empty() && g.has_tensor(t) && !g.tensor(t).is_constant && seen.insert(t).second) out.push_back(t);
  return out;
}

/// Finds and rewrites one region; false when none is left. Declined (known, no NPU op) regions
/// are reported once, keyed by their output.
bool recognise_one(Graph& g, std::vector<Decision>& out, std::set<std::string>& declined, int& found) {
  const ReaderIndex readers = build_reader_index(g);
  for (const std::string& x : roots(g))
    for (const ScalarRegion& r : scalar_regions(g, readers, x)) {
      const Identified id = identify(g, r);
      if (id.op.empty() || (id.op == "Sigmoid" && canonical_silu(g, r))) continue;
      Decision d;
      d.pass = "recognise-activations";
      for (std::size_t i : r.nodes) d.nodes.push_back(g.nodes[i].name);
      d.label = r.x + " -> " + r.y;
      if (id.op == "Mish") {
        if (!declined.insert(r.y).second) continue;
        d.outcome = DecisionOutcome::Declined;
        d.reason = "computes Mish x tanh(softplus(x)) (" + op_list(g, r) + "), which no NPU unit runs as one op: left as its " +
                   std::to_string(r.nodes.size()) + " nodes";
        out.push_back(std::move(d));
        continue;
      }
      d.outcome = DecisionOutcome::Applied;
      d.verb = "recognised";
      d.reason = id.label + " from " + std::to_string(r.nodes.size()) + " nodes (" + op_list(g, r) + ")";
      out.push_back(std::move(d));
      rewrite(g, r, id);
      ++found;
      return true;
    }
  return false;
}

}  // namespace

void replace_chain(Graph& graph, const std::vector<std::size_t>& chain, Node node) {
  std::size_t last = 0;
  for (std::size_t k : chain) last = std::max(last, k);
  const std::set<std::size_t> drop(chain.begin(), chain.end());
  std::vector<Node> kept;
  for (std::size_t k = 0; k < graph.nodes.size(); ++k) {
    if (k == last) kept.push_back(std::move(node));
    else if (!drop.count(k)) kept.push_back(std::move(graph.nodes[k]));
  }
  graph.nodes = std::move(kept);
}

int recognise_activations(Graph& graph, std::vector<Decision>* decisions) {
  std::vector<Decision> out;
  std::set<std::string> declined;
  int found = 0;
  while (recognise_one(graph, out, declined, found)) {
  }
  if (decisions) *decisions = std::move(out);
  return found;
}

// ---- the pass ----------------------------------------------------------------------------

/// recognise-activations: element-wise subgraphs recognised by their function become one node.
class RecogniseActivations : public ImportPass {
 public:
  std::string name() const override { return "recognise-activations"; }
  std::string description() const override {
    return "recognise element-wise subgraphs by the function they compute (GELU erf/tanh, SiLU, HardSwish, "
           "HardSigmoid, ReLU6/Clip, ReLU, LeakyReLU) as one activation";
  }
  std::vector<Decision> run(Graph& graph, const PassContext& ctx) const override {
    std::vector<Decision> out;
    const int n = recognise_activations(graph, &out);
    out.push_back(summary_decision(name(), ctx.model, "recognised " + std::to_string(n) + " activation chain(s)"));
    return out;
  }
};

NPU_REGISTER_PASS(RecogniseActivations, 300);

}  // namespace npu::compiler
