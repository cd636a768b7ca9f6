// The normalising factor of a decomposed norm, recognised by math (norm_factor.hpp).
#include "npu/compiler/transforms/canonicalize/norm_factor.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "npu/compiler/ir/fused_attr.hpp"

namespace npu::compiler {

namespace {

/// Region r's output is applied to d by exactly one node: Div(d, r.y) or Mul(d, r.y) in either
/// order. Returns its index and whether it divides, or -1.
long applying_node(const Graph& g, const ReaderIndex& readers, const ScalarRegion& r, const std::string& d, bool& div) {
  if (is_graph_output(g, r.y)) return -1;
  const auto it = readers.find(r.y);
  if (it == readers.end() || it->second.size() != 1) return -1;
  const Node& a = g.nodes[it->second[0]];
  div = a.op_type == "Div" && a.inputs.size() == 2 && a.inputs[0] == d && a.inputs[1] == r.y;
  const bool mul = a.op_type == "Mul" && other_input(a, r.y) == d;
  return div || mul ? long(it->second[0]) : -1;
}

/// Every reader of m is a node of r, and m is no graph output (the rewrite removes it).
bool reads_only_in(const Graph& g, const ReaderIndex& readers, const std::string& m, const ScalarRegion& r) {
  if (is_graph_output(g, m)) return false;
  const auto it = readers.find(m);
  if (it == readers.end()) return false;
  for (std::size_t i : it->second)
    if (std::find(r.nodes.begin(), r.nodes.end(), i) == r.nodes.end()) return false;
  return true;
}

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

}  // namespace

std::string other_input(const Node& n, const std::string& t) {
  if (n.inputs.size() != 2) return "";
  return n.inputs[0] == t ? n.inputs[1] : (n.inputs[1] == t ? n.inputs[0] : "");
}

bool row_constant(const Graph& g, const std::string& t, std::int64_t d) {
  if (t.empty() || !g.has_tensor(t)) return false;
  const Tensor& c = g.tensor(t);
  // A constant without values (a zoo weight: its values are not known at compile time) qualifies
  // by its shape alone; one with values must hold them all.
  if (!c.is_constant || c.type != ElemType::Float32) return false;
  if (!c.float_data.empty() && std::int64_t(c.float_data.size()) != c.elements()) return false;
  if (c.float_data.empty() && !c.int_data.empty()) return false;
  if (c.elements() == 1) return true;
  if (c.shape.empty() || c.shape.back() != d || c.elements() != d) return false;
  return true;
}

bool mean_over_last_axis(const Graph& g, const Node& n, bool& keepdims) {
  if (n.op_type != "ReduceMean" || n.inputs.empty() || !g.has_tensor(n.inputs[0])) return false;
  keepdims = n.attr_int("keepdims", 1) != 0;
  const auto rank = std::int64_t(g.tensor(n.inputs[0]).shape.size());
  std::vector<std::int64_t> axes = n.attr_ints("axes");
  if (axes.empty() && n.inputs.size() > 1 && g.has_tensor(n.inputs[1]) && g.tensor(n.inputs[1]).is_constant)
    axes = g.tensor(n.inputs[1]).int_data;
  return rank > 0 && axes.size() == 1 && (axes[0] == -1 || axes[0] == rank - 1);
}

NormFactor norm_factor(const Graph& g, const ReaderIndex& readers, const std::string& m, const std::string& d) {
  NormFactor f;
  for (const ScalarRegion& r : scalar_regions(g, readers, m, 1)) {
    bool div = false;
    const long a = applying_node(g, readers, r, d, div);
    if (a < 0 || !reads_only_in(g, readers, m, r)) continue;
    f.nodes = r.nodes;
    f.nodes.push_back(std::size_t(a));
    f.y = g.nodes[std::size_t(a)].outputs[0];
    // factor h(m) = 1 / sqrt(m + eps)  <=>  1 / h^2 - m = eps for every m.
    const double ms[] = {1e-4, 1e-2, 0.25, 1.0, 9.0, 100.0, 1e4};
    double eps0 = 0;
    for (double mv : ms) {
      const double v = evaluate(g, r, mv), h = div ? 1.0 / v : v;
      const double e = 1.0 / (h * h) - mv;
      if (!(h > 0) || !std::isfinite(e)) {
        f.why = "the factor at mean " + num(mv) + " is " + num(h) + ", not 1/sqrt(mean + eps)";
        return f;
      }
      if (mv == ms[0]) eps0 = e;
      else if (std::fabs(e - eps0) > 1e-9 * (1.0 + mv)) {
        f.why = "epsilon is not inside the square root: 1/factor^2 - mean is " + num(eps0) + " at mean " + num(ms[0]) +
                " but " + num(e) + " at mean " + num(mv) + " (sqrt(mean + eps) has one constant eps)";
        return f;
      }
    }
    if (eps0 < -1e-12) {
      f.why = "epsilon " + num(eps0) + " is negative";
      return f;
    }
    f.eps = eps0 < 0 ? 0.0 : eps0;
    return f;
  }
  return f;
}

}  // namespace npu::compiler
