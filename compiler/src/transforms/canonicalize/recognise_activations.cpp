// Recognition of activations exported in decomposed form (recognise_activations.hpp).
#include "npu/compiler/transforms/canonicalize/recognise_activations.hpp"
#include "npu/compiler/transforms/pass_registry.hpp"

#include <cmath>
#include <set>

namespace npu::compiler {

namespace {

// The scalar value of constant tensor `t`, if it is one.
bool scalar(const Graph& g, const std::string& t, double& v) {
  if (t.empty() || !g.has_tensor(t)) return false;
  const Tensor& x = g.tensor(t);
  if (!x.is_constant || x.elements() != 1) return false;
  if (!x.float_data.empty()) v = x.float_data[0];
  else if (!x.int_data.empty()) v = double(x.int_data[0]);
  else return false;
  return true;
}

bool near(double a, double b) { return std::fabs(a - b) <= 1e-4 * std::max(1.0, std::fabs(b)); }

class Matcher {
 public:
  explicit Matcher(Graph& g) : g_(g) {}

  // The node index that reads `t` if it is its only reader and `t` is no graph output.
  long only_consumer(const std::string& t) const { return sole_reader(g_, t); }

  // Binary node `i` of type `op` reading `t` and a scalar constant; returns the constant.
  bool with_scalar(long i, const char* op, const std::string& t, double& c) const {
    if (i < 0) return false;
    const Node& n = g_.nodes[std::size_t(i)];
    if (n.op_type != op || n.inputs.size() != 2) return false;
    if (n.inputs[0] == t) return scalar(g_, n.inputs[1], c);
    if (n.inputs[1] == t && (std::string(op) == "Mul" || std::string(op) == "Add")) return scalar(g_, n.inputs[0], c);
    return false;
  }

  // Mul node i reading t and `other` (either order).
  bool mul_of(long i, const std::string& t, const std::string& other) const {
    if (i < 0) return false;
    const Node& n = g_.nodes[std::size_t(i)];
    return n.op_type == "Mul" && n.inputs.size() == 2 &&
           ((n.inputs[0] == t && n.inputs[1] == other) || (n.inputs[1] == t && n.inputs[0] == other));
  }

  // GELU (erf form): y = x * 0.5 * (1 + erf(x / sqrt2)), as torch exports it:
  // Div(x, 1.4142) | Mul(x, 0.7071) -> Erf -> Add(1) -> then x and 0.5 multiplied in, in
  // either order (Mul(x, a) -> Mul(0.5), Mul(a, 0.5) -> Mul(x, .), or Mul(Mul(x, 0.5), a)).
  bool gelu(std::size_t erf, std::vector<std::size_t>& chain, std::string& x, std::string& y) const {
    const Node& e = g_.nodes[erf];
    if (e.op_type != "Erf" || e.inputs.empty()) return false;
    const auto p = g_.producer(e.inputs[0]);
    if (!p) return false;
    const Node& scale = g_.nodes[*p];
    double c = 0;
    if (scale.inputs.size() != 2 || only_consumer(scale.outputs[0]) != long(erf)) return false;
    x = scale.inputs[0];
    if (!((scale.op_type == "Div" && scalar(g_, scale.inputs[1], c) && near(c, std::sqrt(2.0))) ||
          (scale.op_type == "Mul" && scalar(g_, scale.inputs[1], c) && near(c, 1.0 / std::sqrt(2.0)))))
      return false;
    const long add = only_consumer(e.outputs[0]);
    if (!with_scalar(add, "Add", e.outputs[0], c) || !near(c, 1.0)) return false;
    const std::string a = g_.nodes[std::size_t(add)].outputs[0];
    const long m1 = only_consumer(a);
    if (m1 < 0) return false;
    chain = {*p, erf, std::size_t(add), std::size_t(m1)};
    const Node& n1 = g_.nodes[std::size_t(m1)];
    if (mul_of(m1, a, x) || with_scalar(m1, "Mul", a, c)) {
      const bool took_x = mul_of(m1, a, x);
      if (!took_x && !near(c, 0.5)) return false;
      const long m2 = only_consumer(n1.outputs[0]);
      if (m2 < 0) return false;
      if (took_x ? !(with_scalar(m2, "Mul", n1.outputs[0], c) && near(c, 0.5)) : !mul_of(m2, n1.outputs[0], x))
        return false;
      chain.push_back(std::size_t(m2));
      y = g_.nodes[std::size_t(m2)].outputs[0];
      return true;
    }
    // Mul(Mul(x, 0.5), a)
    for (const auto& in : n1.inputs) {
      if (in == a) continue;
      const auto h = g_.producer(in);
      if (!h || !with_scalar(long(*h), "Mul", x, c) || !near(c, 0.5) || only_consumer(in) != m1) continue;
      if (!mul_of(m1, a, in)) continue;
      chain.push_back(*h);
      y = n1.outputs[0];
      return true;
    }
    return false;
  }

  // HardSwish as x * HardSigmoid(x) with alpha 1/6, beta 0.5 (torchvision detection exports).
  bool hard_swish_from_hard_sigmoid(std::size_t hs, std::vector<std::size_t>& chain, std::string& x,
                                    std::string& y) const {
    const Node& h = g_.nodes[hs];
    if (h.op_type != "HardSigmoid" || h.inputs.size() != 1) return false;
    if (!near(h.attr_float("alpha", 0.2f), 1.0 / 6.0) || !near(h.attr_float("beta", 0.5f), 0.5)) return false;
    x = h.inputs[0];
    const long m = only_consumer(h.outputs[0]);
    if (!mul_of(m, h.outputs[0], x)) return false;
    chain = {hs, std::size_t(m)};
    y = g_.nodes[std::size_t(m)].outputs[0];
    return true;
  }

  // HardSwish: y = x * Clip(x + 3, 0, 6) / 6: Add(x, 3) -> Clip(0, 6) -> then Mul(x, .)
  // and Div(6) (or Mul(1/6)) in either order.
  bool hard_swish(std::size_t add, std::vector<std::size_t>& chain, std::string& x, std::string& y) const {
    const Node& a = g_.nodes[add];
    double c = 0;
    if (a.op_type != "Add" || a.inputs.size() != 2) return false;
    x = scalar(g_, a.inputs[1], c) ? a.inputs[0] : a.inputs[1];
    if (!with_scalar(long(add), "Add", x, c) || !near(c, 3.0)) return false;
    const long clip = only_consumer(a.outputs[0]);
    if (clip < 0) return false;
    const Node& cl = g_.nodes[std::size_t(clip)];
    if (cl.op_type != "Clip" || cl.inputs.size() != 1 || !near(cl.attr_float("min", -1), 0.0) ||
        !near(cl.attr_float("max", -1), 6.0))
      return false;
    const std::string r = cl.outputs[0];
    const long n1 = only_consumer(r);
    if (n1 < 0) return false;
    chain = {add, std::size_t(clip), std::size_t(n1)};
    auto is_sixth = [&](long i, const std::string& t) {
      double k = 0;
      return (with_scalar(i, "Div", t, k) && near(k, 6.0)) || (with_scalar(i, "Mul", t, k) && near(k, 1.0 / 6.0));
    };
    const std::string o1 = g_.nodes[std::size_t(n1)].outputs[0];
    const long n2 = only_consumer(o1);
    if (n2 < 0) return false;
    const bool ok = (mul_of(n1, r, x) && is_sixth(n2, o1)) || (is_sixth(n1, r) && mul_of(n2, o1, x));
    if (!ok) return false;
    chain.push_back(std::size_t(n2));
    y = g_.nodes[std::size_t(n2)].outputs[0];
    return true;
  }

 private:
  Graph& g_;
};

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

int recognise_activations(Graph& graph) {
  int found = 0;
  for (bool again = true; again;) {
    again = false;
    Matcher m(graph);
    for (std::size_t i = 0; i < graph.nodes.size() && !again; ++i) {
      std::vector<std::size_t> chain;
      std::string x, y, op;
      if (m.gelu(i, chain, x, y)) op = "Gelu";
      else if (m.hard_swish(i, chain, x, y) || m.hard_swish_from_hard_sigmoid(i, chain, x, y)) op = "HardSwish";
      else continue;
      // Replace the chain by one node at the position of its last node (its inputs are all
      // defined there), named after the chain's first node.
      Node n;
      n.name = graph.nodes[chain.front()].name;
      n.op_type = op;
      n.inputs = {x};
      n.outputs = {y};
      replace_chain(graph, chain, std::move(n));
      ++found;
      again = true;
    }
  }
  return found;
}

// ---- the pass ----------------------------------------------------------------------------

/// recognise-activations: decomposed GELU / HardSwish chains become one node.
class RecogniseActivations : public ImportPass {
 public:
  std::string name() const override { return "recognise-activations"; }
  std::string description() const override {
    return "recognise decomposed activations (GELU erf form, HardSwish) as one node";
  }
  std::vector<Decision> run(Graph& graph, const PassContext& ctx) const override {
    return {summary_decision(name(), ctx.model,
                             "recognised " + std::to_string(recognise_activations(graph)) + " activation chain(s)")};
  }
};

NPU_REGISTER_PASS(RecogniseActivations, 300);

}  // namespace npu::compiler
