// sink-layout-transposes: converter exports in NHWC (tf2onnx, Keras, TFLite converters) wrap
// every Conv in layout Transposes: Transpose(0,3,1,2) -> Conv -> Transpose(0,2,3,1), with the
// bias Add, the BatchNorm's Mul/Add, the activation and the residual Add between two of them in
// NHWC. No fusion pattern saw through those Transposes: a tf2onnx Conv -> bias -> Relu stayed
// three layers and two layout copies, with "no candidate in the graph" (new-user finding).
//
// This pass moves an element-wise node that reads an NCHW<->NHWC Transpose (perm 0,2,3,1 or
// 0,3,1,2) to before it, so the Transpose moves one node down, and drops a Transpose that meets
// its inverse. What moves, with T(x) = transpose(x, P):
//   - a unary element-wise op (Relu, Clip, Sigmoid, ...):  E(T(a))    = T(E(a));
//   - an op with a constant operand c, broadcast right-aligned over T's output:
//                                                          E(T(a), c) = T(E(a, c')),
//     c' = transpose(c padded to rank 4, P^-1) (a per-channel [C] becomes [1, C, 1, 1]);
//   - an op of two Transposes of one perm (a residual Add): E(T(a), T(b)) = T(E(a, b));
//   - a Reduce* with keepdims 0 whose kept axes keep their order (a global pool to [N, C]):
//     R(T(a), axes) = R(a, P[axes]), no Transpose left.
// Each moved node keeps its name; its new output gets a fresh name, the Transpose after it the
// old one, so readers are unchanged. Then T2(T1(a)) with inverse perms is a; readers read a.
// Left as they are: a Transpose whose output another node reads too, or that the model returns;
// quantised tensors; non-float constants, and constants that are neither per-channel nor
// full-size once moved (an NHWC [W, C] would become a row-split [1, C, 1, W]); a Reduce* of
// the channel axis (the vector unit reduces trailing axes); ops whose output is larger than
// their moved input (a broadcast that expands); tensors a Loop/If body reads by name. Other perms (attention heads,
// 0,2,1,3) are left to the passes that match them.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "frontend/onnx/onnx_subgraph.hpp"
#include "npu/compiler/transforms/pass_registry.hpp"

namespace npu::compiler {

namespace {

using Perm = std::vector<std::int64_t>;

const Perm kToNhwc{0, 2, 3, 1}, kToNchw{0, 3, 1, 2};

bool unary_op(const std::string& op) {
  static const std::set<std::string> kOps{"Relu", "Clip", "LeakyRelu", "Sigmoid", "HardSigmoid", "HardSwish",
                                          "Tanh", "Gelu", "Elu", "Selu", "Softplus", "Neg", "Abs", "Sqrt",
                                          "Exp", "Erf", "Identity"};
  return kOps.count(op) > 0;
}

bool binary_op(const std::string& op) {
  static const std::set<std::string> kOps{"Add", "Sub", "Mul", "Div", "Max", "Min", "PRelu"};
  return kOps.count(op) > 0;
}

/// The perm of layout Transpose n (NCHW->NHWC or back), or empty.
Perm layout_perm(const Node& n) {
  if (n.op_type != "Transpose" || n.inputs.size() != 1 || n.outputs.size() != 1) return {};
  const Perm p = n.attr_ints("perm", {});
  return p == kToNhwc || p == kToNchw ? p : Perm{};
}

Perm inverse(const Perm& p) {
  Perm inv(p.size());
  for (std::size_t k = 0; k < p.size(); ++k) inv[std::size_t(p[k])] = std::int64_t(k);
  return inv;
}

/// Constant c (rank <= 4, float) right-aligned to rank 4 and transposed by q: shape and data.
bool permuted_constant(const Tensor& c, const Perm& q, Tensor& out) {
  if (!c.is_constant || c.float_data.empty() || !c.int_data.empty() || c.shape.size() > 4 || c.quant) return false;
  std::vector<std::int64_t> s(4 - c.shape.size(), 1);
  s.insert(s.end(), c.shape.begin(), c.shape.end());
  std::int64_t n = 1;
  for (auto d : s) n *= d;
  if (n != std::int64_t(c.float_data.size())) return false;
  out = c;
  out.shape = {s[std::size_t(q[0])], s[std::size_t(q[1])], s[std::size_t(q[2])], s[std::size_t(q[3])]};
  std::int64_t in_stride[4], idx[4];
  in_stride[3] = 1;
  for (int k = 2; k >= 0; --k) in_stride[k] = in_stride[k + 1] * s[std::size_t(k + 1)];
  for (std::int64_t o = 0; o < n; ++o) {  // o walks the output row-major; idx = its coordinates
    std::int64_t r = o;
    for (int k = 3; k >= 0; --k) idx[k] = r % out.shape[std::size_t(k)], r /= out.shape[std::size_t(k)];
    std::int64_t src = 0;
    for (int k = 0; k < 4; ++k) src += idx[k] * in_stride[q[std::size_t(k)]];
    out.float_data[std::size_t(o)] = c.float_data[std::size_t(src)];
  }
  return true;
}

/// A moved constant of NCHW shape `s` the NPU applies as one layer to a tensor of shape `x`:
/// one value per channel ([1,C,1,1], [C,1,1] padded) or one per element (x's own shape). Other
/// broadcasts (an NHWC [W,C] constant becomes [1,C,1,W]) would split the layer by rows, where
/// the NHWC form was one: left as written.
bool layer_shaped(const std::vector<std::int64_t>& s, const std::vector<std::int64_t>& x) {
  if (s == x) return true;
  return s.size() == 4 && s[0] == 1 && s[2] == 1 && s[3] == 1;
}

/// An applied decision of this pass.
Decision applied(std::vector<std::string> nodes, std::string label, const char* verb, std::string reason) {
  Decision d;
  d.pass = "sink-layout-transposes";
  d.nodes = std::move(nodes);
  d.label = std::move(label);
  d.outcome = DecisionOutcome::Applied;
  d.verb = verb;
  d.reason = std::move(reason);
  return d;
}

class Sinker {
 public:
  Sinker(Graph& g, const std::set<std::string>& outer) : g_(g), outer_(outer) {}

  /// One rewrite anywhere in the graph; false when none is left. Graphs without a layout
  /// Transpose (every torch export) cost one scan.
  bool step(std::vector<Decision>& out) {
    layout_.clear();
    for (std::size_t i = 0; i < g_.nodes.size(); ++i)
      if (!layout_perm(g_.nodes[i]).empty()) layout_[g_.nodes[i].outputs[0]] = i;
    if (layout_.empty()) return false;
    for (std::size_t i = 0; i < g_.nodes.size(); ++i)
      if (cancel(i, out) || sink(i, out)) return true;
    return false;
  }

 private:
  /// The layout Transpose writing `t` whose output only node `reader` reads: its index, or -1.
  long movable_transpose(const std::string& t, std::size_t reader) const {
    const auto it = layout_.find(t);
    if (it == layout_.end() || is_graph_output(g_, t) || outer_.count(t)) return -1;
    const std::vector<std::size_t> readers = g_.consumers(t);
    if (readers.size() != 1 || readers[0] != reader) return -1;
    if (g_.tensor(t).quant || g_.tensor(g_.nodes[it->second].inputs[0]).quant) return -1;
    return long(it->second);
  }

  /// Of the Transposes node-reading `ts`, the one whose output has the node output `y`'s shape
  /// (the other operand may be a smaller broadcast one: an SE gate [1,1,1,C]), or -1.
  long main_transpose(const std::vector<long>& ts, const std::string& y) const {
    for (long k : ts)
      if (k >= 0 && g_.tensor(g_.nodes[std::size_t(k)].outputs[0]).shape == g_.tensor(y).shape) return k;
    return -1;
  }

  std::string fresh_tensor(const std::string& base) const {
    std::string name = base + "/nchw";
    for (int k = 2; g_.has_tensor(name); ++k) name = base + "/nchw~" + std::to_string(k);
    return name;
  }

  /// A Reduce* over axes `axes` of an NHWC Transpose, keepdims 0, keeping N and C: it reads the
  /// NCHW tensor over the same axes mapped through the perm, and the output (N, C in that order
  /// in both layouts) needs no Transpose at all (Keras GlobalAveragePooling2D as tf2onnx writes
  /// it: Transpose(0,2,3,1) -> ReduceMean(axes 1,2, keepdims 0)).
  bool reduce_through(std::size_t i, std::vector<Decision>& out) {
    Node& r = g_.nodes[i];
    if (r.op_type.rfind("Reduce", 0) != 0 || r.inputs.size() != 1 || r.attr_int("keepdims", 1) != 0) return false;
    const long t = movable_transpose(r.inputs[0], i);
    if (t < 0) return false;
    const Perm p = layout_perm(g_.nodes[std::size_t(t)]);
    if (p != kToNhwc) return false;  // a reduce of the NCHW tensor already reads the layout the NPU reduces
    std::vector<std::int64_t> axes = r.attr_ints("axes", {});
    if (axes.empty()) return false;  // every axis: already layout-free, but nothing to gain
    std::vector<bool> reduced(4, false);
    for (std::int64_t& a : axes) {
      if (a < 0) a += 4;
      if (a < 0 || a > 3) return false;
      reduced[std::size_t(a)] = true;
      a = p[std::size_t(a)];
    }
    std::int64_t last = -1;  // the kept axes must keep their order through the perm
    for (std::size_t k = 0; k < 4; ++k)
      if (!reduced[k]) {
        if (p[k] < last) return false;
        last = p[k];
      }
    std::sort(axes.begin(), axes.end());
    for (std::size_t k = 0; k < axes.size(); ++k)  // the vector unit reduces trailing axes (H, W): a
      if (axes[k] != std::int64_t(4 - axes.size() + k)) return false;  // channel reduce stays on NHWC
    const Node tn = g_.nodes[std::size_t(t)];
    out.push_back(applied({r.name, tn.name}, r.name + " (" + r.op_type + ") without " + tn.name, "moved",
                          "reduces the NCHW tensor over the same axes; its output has the same layout"));
    r.inputs[0] = tn.inputs[0];
    r.attrs["axes"] = axes;
    g_.nodes.erase(g_.nodes.begin() + t);
    return true;
  }

  /// Node i moved before the Transpose(s) it reads; see the file comment.
  bool sink(std::size_t i, std::vector<Decision>& out) {
    if (reduce_through(i, out)) return true;
    Node& e = g_.nodes[i];
    const bool unary = unary_op(e.op_type) && !e.inputs.empty() && std::all_of(e.inputs.begin() + 1, e.inputs.end(),
                                                                                [](const std::string& s) { return s.empty(); });
    if ((!unary && !(binary_op(e.op_type) && e.inputs.size() == 2)) || e.outputs.size() != 1) return false;
    const std::string y = e.outputs[0];
    if (!g_.has_tensor(y) || g_.tensor(y).quant || outer_.count(y)) return false;
    std::vector<long> ts;  // the Transpose read by each input, or -1
    for (const std::string& in : e.inputs) ts.push_back(movable_transpose(in, i));
    const long t0 = main_transpose(ts, y);
    if (t0 < 0) return false;
    const Perm p = layout_perm(g_.nodes[std::size_t(t0)]);
    const std::vector<std::int64_t>& a_shape = g_.tensor(g_.nodes[std::size_t(t0)].inputs[0]).shape;
    std::vector<std::string> new_inputs = e.inputs;
    std::vector<Tensor> new_constants;
    for (std::size_t k = 0; k < e.inputs.size(); ++k) {
      if (ts[k] >= 0 && layout_perm(g_.nodes[std::size_t(ts[k])]) == p) {
        new_inputs[k] = g_.nodes[std::size_t(ts[k])].inputs[0];
        continue;
      }
      if (ts[k] >= 0 || !g_.has_tensor(e.inputs[k])) return false;  // another perm, or unknown
      const Tensor& c = g_.tensor(e.inputs[k]);
      if (c.elements() == 1 && c.is_constant) continue;  // a scalar broadcasts alike in both layouts
      Tensor cp;
      if (!permuted_constant(c, inverse(p), cp) || !layer_shaped(cp.shape, a_shape)) return false;
      cp.name = fresh_tensor(c.name);
      new_inputs[k] = cp.name;
      new_constants.push_back(std::move(cp));
    }
    const Tensor& a = g_.tensor(g_.nodes[std::size_t(t0)].inputs[0]);
    if (!a.shape_known() || a.shape.size() != 4) return false;
    rewrite(i, t0, ts, new_inputs, new_constants, out);
    return true;
  }

  void rewrite(std::size_t i, long t0, const std::vector<long>& ts, const std::vector<std::string>& new_inputs,
               std::vector<Tensor>& new_constants, std::vector<Decision>& out) {
    Node t = g_.nodes[std::size_t(t0)];
    Node e = g_.nodes[i];
    const std::string y = e.outputs[0];
    Tensor y_nchw = g_.tensor(y);
    y_nchw.name = fresh_tensor(y);
    y_nchw.shape = g_.tensor(t.inputs[0]).shape;
    for (Tensor& c : new_constants) g_.tensors[c.name] = std::move(c);
    g_.tensors[y_nchw.name] = y_nchw;
    out.push_back(applied({e.name, t.name}, e.name + " (" + e.op_type + ") before " + t.name, "moved",
                          "the " + e.op_type + " now reads the NCHW tensor; the layout Transpose follows it"));
    e.inputs = new_inputs;
    e.outputs = {y_nchw.name};
    t.inputs = {y_nchw.name};
    t.outputs = {y};
    std::set<std::size_t> drop;
    for (long k : ts)
      if (k >= 0) drop.insert(std::size_t(k));
    std::vector<Node> nodes;
    for (std::size_t k = 0; k < g_.nodes.size(); ++k) {
      if (k == i) {
        nodes.push_back(std::move(e));
        nodes.push_back(std::move(t));
      } else if (!drop.count(k)) {
        nodes.push_back(std::move(g_.nodes[k]));
      }
    }
    g_.nodes = std::move(nodes);
  }

  /// Transpose i reading a Transpose of the inverse perm: its readers read the first's input.
  bool cancel(std::size_t i, std::vector<Decision>& out) {
    const Node& t2 = g_.nodes[i];
    const Perm q = layout_perm(t2);
    if (q.empty() || is_graph_output(g_, t2.outputs[0]) || outer_.count(t2.outputs[0])) return false;
    if (const auto it = layout_.find(t2.inputs[0]); it != layout_.end()) {
      const std::size_t k = it->second;
      const Node& t1 = g_.nodes[k];
      if (layout_perm(t1) != inverse(q)) return false;
      if (g_.tensor(t1.inputs[0]).quant || g_.tensor(t2.outputs[0]).quant) return false;
      const std::string a = t1.inputs[0], y = t2.outputs[0];
      out.push_back(applied({t1.name, t2.name}, t1.name + " -> " + t2.name, "cancelled",
                            "inverse layout Transposes: their readers read " + a));
      for (Node& n : g_.nodes)
        for (std::string& in : n.inputs)
          if (in == y) in = a;
      g_.nodes.erase(g_.nodes.begin() + long(i));
      if (g_.consumers(t1.outputs[0]).empty() && !is_graph_output(g_, t1.outputs[0]) && !outer_.count(t1.outputs[0]))
        g_.nodes.erase(g_.nodes.begin() + long(k));
      return true;
    }
    return false;
  }

  Graph& g_;
  const std::set<std::string>& outer_;
  std::map<std::string, std::size_t> layout_;  ///< output of a layout Transpose -> its node index
};

}  // namespace

/// The import pass (order 440: after recognise-activations and the norm recognisers, so the
/// activations are single nodes; before recognise-affine, which then sees Conv -> Mul/Add).
class SinkLayoutTransposes : public ImportPass {
 public:
  std::string name() const override { return "sink-layout-transposes"; }
  std::string description() const override {
    return "move element-wise ops (bias, scale, activation, residual Add) before NCHW<->NHWC layout Transposes and "
           "cancel inverse Transpose pairs, so converter (NHWC) exports match the fusion patterns";
  }
  std::vector<Decision> run(Graph& graph, const PassContext& ctx) const override {
    std::set<std::string> outer;
    for (const Node& n : graph.nodes)
      for (const std::string& t : outer_scope_reads(n)) outer.insert(t);
    std::vector<Decision> out;
    Sinker s(graph, outer);
    while (s.step(out)) {
    }
    std::size_t moved = 0, cancelled = 0;
    for (const Decision& d : out) (d.verb == "moved" ? moved : cancelled) += 1;
    if (!out.empty()) remove_unused_tensors(graph, outer);
    out.push_back(summary_decision(name(), ctx.model,
                                   "moved " + std::to_string(moved) + " element-wise node(s) before a layout Transpose, "
                                   "cancelled " + std::to_string(cancelled) + " inverse Transpose pair(s)"));
    return out;
  }
};

NPU_REGISTER_PASS(SinkLayoutTransposes, 440);

}  // namespace npu::compiler
