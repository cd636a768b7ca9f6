// The scalar function of a single-input element-wise subgraph (scalar_function.hpp).
#include "npu/compiler/transforms/canonicalize/scalar_function.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <set>

#include "npu/compiler/ir/fused_attr.hpp"

namespace npu::compiler {

namespace {

bool is_scalar_op(const std::string& op) {
  static const std::set<std::string> kOps(scalar_ops().begin(), scalar_ops().end());
  return kOps.count(op) > 0;
}

/// Node `n` may join a region holding tensors `in`: an element-wise op reading at least one of
/// them, whose other inputs are constant scalars (or an absent Clip bound), writing one float
/// tensor of x's shape.
bool joins(const Graph& g, const Node& n, const std::set<std::string>& in, const Tensor& xt) {
  if (!is_scalar_op(n.op_type) || n.outputs.size() != 1 || !g.has_tensor(n.outputs[0])) return false;
  const Tensor& y = g.tensor(n.outputs[0]);
  if (y.shape != xt.shape || y.type != ElemType::Float32 || y.quant) return false;
  bool reads_region = false;
  for (std::size_t k = 0; k < n.inputs.size(); ++k) {
    const std::string& t = n.inputs[k];
    if (in.count(t)) reads_region = true;
    else if (t.empty() ? !(n.op_type == "Clip" && k > 0) : !constant_scalar(g, t)) return false;
  }
  return reads_region;
}

/// The nodes of the region grown from x, ascending: every node whose inputs are x, region
/// outputs or constant scalars (joins()), found through the readers of region tensors.
std::vector<std::size_t> grow(const Graph& g, const ReaderIndex& readers, const std::string& x, std::size_t max_nodes) {
  const Tensor& xt = g.tensor(x);
  std::set<std::string> in{x};
  std::set<std::size_t> frontier, seen;
  auto add_readers = [&](const std::string& t) {
    if (auto it = readers.find(t); it != readers.end())
      for (std::size_t i : it->second)
        if (seen.insert(i).second) frontier.insert(i);
  };
  add_readers(x);
  std::vector<std::size_t> nodes;
  // Smallest index first: every region node that feeds node i has a smaller index (the node
  // list is topological), so it joined before i is tried.
  while (!frontier.empty() && nodes.size() < max_nodes) {
    const std::size_t i = *frontier.begin();
    frontier.erase(frontier.begin());
    if (!joins(g, g.nodes[i], in, xt)) continue;
    nodes.push_back(i);
    in.insert(g.nodes[i].outputs[0]);
    add_readers(g.nodes[i].outputs[0]);
  }
  return nodes;
}

/// The subregion of region node `last` (its ancestors in the region), if it is closed.
std::optional<ScalarRegion> closed_subregion(const Graph& g, const ReaderIndex& readers, const std::string& x,
                                             const std::map<std::string, std::size_t>& producer, std::size_t last) {
  std::set<std::size_t> a{last};
  std::vector<std::size_t> stack{last};
  while (!stack.empty()) {
    const Node& n = g.nodes[stack.back()];
    stack.pop_back();
    for (const std::string& t : n.inputs)
      if (auto it = producer.find(t); it != producer.end() && a.insert(it->second).second) stack.push_back(it->second);
  }
  for (std::size_t i : a) {
    if (i == last) continue;
    const std::string& t = g.nodes[i].outputs[0];
    if (is_graph_output(g, t)) return std::nullopt;
    if (auto it = readers.find(t); it != readers.end())
      for (std::size_t r : it->second)
        if (!a.count(r)) return std::nullopt;
  }
  return ScalarRegion{x, g.nodes[last].outputs[0], std::vector<std::size_t>(a.begin(), a.end())};
}

double softplus(double v) { return v > 30 ? v + std::log1p(std::exp(-v)) : std::log1p(std::exp(v)); }

/// One node's value from its operand values `in` (nullopt: an absent optional input).
double node_value(const Node& n, const std::vector<std::optional<double>>& in) {
  const std::string& op = n.op_type;
  const double a = in[0].value_or(std::numeric_limits<double>::quiet_NaN());
  const double b = in.size() > 1 ? in[1].value_or(std::numeric_limits<double>::quiet_NaN()) : 0.0;
  if (op == "Mul") return a * b;
  if (op == "Add") return a + b;
  if (op == "Sub") return a - b;
  if (op == "Div") return a / b;
  if (op == "Pow") return std::pow(a, b);
  if (op == "Min" || op == "Max") {  // variadic; NaN propagates (ONNX Runtime does the same)
    double r = a;
    for (const auto& v : in) {
      if (std::isnan(*v)) return *v;
      r = op == "Min" ? std::min(r, *v) : std::max(r, *v);
    }
    return r;
  }
  if (op == "Clip") {  // ONNX Clip: min > max gives max
    double lo = in.size() > 1 && in[1] ? *in[1] : n.has_attr("min") ? n.attr_float("min", 0) : -INFINITY;
    double hi = in.size() > 2 && in[2] ? *in[2] : n.has_attr("max") ? n.attr_float("max", 0) : INFINITY;
    return std::min(std::max(a, lo), hi);
  }
  if (op == "Tanh") return std::tanh(a);
  if (op == "Erf") return std::erf(a);
  if (op == "Sigmoid") return 1.0 / (1.0 + std::exp(-a));
  if (op == "Exp") return std::exp(a);
  if (op == "Log") return std::log(a);
  if (op == "Softplus") return softplus(a);
  if (op == "Relu") return a > 0 ? a : 0.0;
  if (op == "Neg") return -a;
  if (op == "Abs") return std::fabs(a);
  if (op == "Sqrt") return std::sqrt(a);
  if (op == "Reciprocal") return 1.0 / a;
  if (op == "HardSigmoid")
    return std::max(0.0, std::min(1.0, double(n.attr_float("alpha", 0.2f)) * a + double(n.attr_float("beta", 0.5f))));
  if (op == "HardSwish") return a * std::max(0.0, std::min(1.0, a / 6.0 + 0.5));
  return a;  // Identity, and Dropout: training-dropout (order 150) leaves only Dropouts that are the identity
}

}  // namespace

ReaderIndex build_reader_index(const Graph& g) {
  ReaderIndex r;
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    for (const std::string& t : g.nodes[i].inputs)
      if (!t.empty() && (r[t].empty() || r[t].back() != i)) r[t].push_back(i);
  return r;
}

const std::vector<std::string>& scalar_ops() {
  static const std::vector<std::string> kOps = {"Mul",  "Add",  "Sub",      "Div",  "Pow",  "Tanh", "Erf",
                                                "Sigmoid", "Exp", "Log",    "Softplus", "Clip", "Min", "Max",
                                                "Relu", "Neg",  "Abs",      "Sqrt", "Reciprocal", "HardSigmoid",
                                                "HardSwish", "Identity", "Dropout"};
  return kOps;
}

std::vector<ScalarRegion> scalar_regions(const Graph& g, const ReaderIndex& readers, const std::string& x,
                                         std::size_t min_nodes, std::size_t max_nodes) {
  if (!g.has_tensor(x)) return {};
  const Tensor& xt = g.tensor(x);
  if (xt.is_constant || xt.type != ElemType::Float32 || xt.quant || xt.shape.empty()) return {};
  for (std::int64_t d : xt.shape)
    if (d <= 0) return {};
  const std::vector<std::size_t> nodes = grow(g, readers, x, max_nodes);
  std::map<std::string, std::size_t> producer;
  for (std::size_t i : nodes) producer[g.nodes[i].outputs[0]] = i;
  std::vector<ScalarRegion> out;
  for (std::size_t i : nodes)
    if (auto r = closed_subregion(g, readers, x, producer, i); r && r->nodes.size() >= min_nodes)
      out.push_back(std::move(*r));
  std::stable_sort(out.begin(), out.end(), [](const ScalarRegion& a, const ScalarRegion& b) {
    return a.nodes.size() != b.nodes.size() ? a.nodes.size() > b.nodes.size() : a.nodes.back() > b.nodes.back();
  });
  return out;
}

double evaluate(const Graph& g, const ScalarRegion& r, double v) {
  std::map<std::string, double> val{{r.x, v}};
  for (std::size_t i : r.nodes) {
    const Node& n = g.nodes[i];
    std::vector<std::optional<double>> in;
    for (const std::string& t : n.inputs) {
      if (auto it = val.find(t); it != val.end()) in.push_back(it->second);
      else in.push_back(constant_scalar(g, t));
    }
    val[n.outputs[0]] = node_value(n, in);
  }
  return val.at(r.y);
}

const std::vector<double>& probe_points() {
  static const std::vector<double> kProbes = [] {
    std::vector<double> p;
    for (int k = 0; k < 64; ++k) p.push_back(-8.0 + 16.0 * k / 63.0);
    for (double e : {0.0, 0.5, 1.0, 2.0, 3.0, 6.0, 10.0, 20.0, 100.0, 1000.0}) {
      p.push_back(e);
      if (e != 0.0) p.push_back(-e);
    }
    return p;
  }();
  return kProbes;
}

}  // namespace npu::compiler
