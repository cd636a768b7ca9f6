// QDQ and QLinear models folded into the float graph with quantisation recorded (fold_qdq.hpp).
#include "npu/compiler/transforms/canonicalize/fold_qdq.hpp"
#include "npu/compiler/transforms/pass_registry.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "npu/compiler/transforms/pass.hpp"

namespace npu::compiler {

namespace {

bool is_graph_input(const Graph& g, const std::string& t) {
  return std::find(g.inputs.begin(), g.inputs.end(), t) != g.inputs.end();
}

const Tensor* constant(const Graph& g, const std::string& name) {
  if (name.empty() || !g.has_tensor(name)) return nullptr;
  const Tensor& t = g.tensor(name);
  return t.is_constant ? &t : nullptr;
}

/// A constant's values as floats (float or integer data).
std::vector<float> values(const Tensor& t) {
  if (!t.float_data.empty()) return t.float_data;
  std::vector<float> v;
  v.reserve(t.int_data.size());
  for (auto x : t.int_data) v.push_back(float(x));
  return v;
}

/// Scale and zero point of a QuantizeLinear / DequantizeLinear (inputs 1 and 2) when both
/// are constant; the zero point defaults to 0 of type uint8 (ONNX). Axis normalised for a
/// tensor of rank `rank`.
std::optional<QuantParams> params_of(const Graph& g, const Node& n, std::size_t rank) {
  if (n.inputs.size() < 2) return std::nullopt;
  const Tensor* s = constant(g, n.inputs[1]);
  if (!s || s->elements() < 1) return std::nullopt;
  QuantParams q;
  q.scale = values(*s);
  q.type = ElemType::Uint8;
  if (n.inputs.size() > 2 && !n.inputs[2].empty()) {
    const Tensor* z = constant(g, n.inputs[2]);
    if (!z) return std::nullopt;
    q.zero_point = z->int_data;
    q.type = z->type;
  }
  if (q.zero_point.empty()) q.zero_point.assign(q.scale.size(), 0);
  if (q.zero_point.size() != q.scale.size()) return std::nullopt;
  std::int64_t axis = n.attr_int("axis", 1);
  if (axis < 0) axis += std::int64_t(rank);
  q.axis = axis;
  return q;
}

/// Index along q.axis of flat element i of a tensor of `shape` (0 for per-tensor params).
std::size_t channel_of(const QuantParams& q, const std::vector<std::int64_t>& shape, std::size_t i) {
  if (q.scale.size() == 1 || q.axis < 0 || q.axis >= std::int64_t(shape.size())) return 0;
  std::size_t inner = 1;
  for (std::size_t d = std::size_t(q.axis) + 1; d < shape.size(); ++d) inner *= std::size_t(shape[d]);
  return (i / inner) % std::size_t(shape[std::size_t(q.axis)]);
}

Tensor& new_tensor(Graph& g, const std::string& name, const std::vector<std::int64_t>& shape) {
  Tensor t;
  t.name = name;
  t.shape = shape;
  g.tensors[name] = t;
  return g.tensors[name];
}

Node make_node(const std::string& name, const std::string& op, std::vector<std::string> ins,
               std::vector<std::string> outs) {
  Node n;
  n.name = name;
  n.op_type = op;
  n.inputs = std::move(ins);
  n.outputs = std::move(outs);
  return n;
}

/// QLinearConv / QLinearMatMul at `i` as DQ(x) -> DQ(w) -> Conv/MatMul -> Q(y); false when
/// its scales are not constant.
bool rewrite_qlinear(Graph& g, std::size_t i) {
  const Node q = g.nodes[i];
  const bool conv = q.op_type == "QLinearConv";
  if (q.inputs.size() < 8 || q.outputs.size() != 1) return false;
  const Tensor* xs = constant(g, q.inputs[1]);
  const Tensor* ws = constant(g, q.inputs[4]);
  if (!xs || !ws || !constant(g, q.inputs[6]) || xs->float_data.size() != 1 || ws->float_data.empty()) return false;
  for (std::size_t k : {std::size_t(0), std::size_t(3), std::size_t(6)})
    if (!g.has_tensor(q.inputs[k])) return false;
  if (!g.has_tensor(q.outputs[0])) return false;
  const std::string base = q.name.empty() ? q.outputs[0] : q.name;
  const std::string x_f = base + ".x_dq", w_f = base + ".w_dq", y_f = base + ".y_f";
  new_tensor(g, x_f, g.tensor(q.inputs[0]).shape);
  new_tensor(g, w_f, g.tensor(q.inputs[3]).shape);
  new_tensor(g, y_f, g.tensor(q.outputs[0]).shape);
  std::vector<Node> nodes;
  nodes.push_back(make_node(base + ".dq_x", "DequantizeLinear", {q.inputs[0], q.inputs[1], q.inputs[2]}, {x_f}));
  Node dq_w = make_node(base + ".dq_w", "DequantizeLinear", {q.inputs[3], q.inputs[4], q.inputs[5]}, {w_f});
  // Per output channel: Conv weights [K, C, kh, kw] along axis 0; MatMul B [K, N] along axis 1.
  dq_w.attrs["axis"] = std::int64_t(conv ? 0 : 1);
  nodes.push_back(dq_w);
  Node op = make_node(base, conv ? "Conv" : "MatMul", {x_f, w_f}, {y_f});
  if (conv) {
    for (const char* a : {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"})
      if (q.has_attr(a)) op.attrs[a] = q.attrs.at(a);
    if (q.inputs.size() > 8 && !q.inputs[8].empty()) {
      const Tensor* b = constant(g, q.inputs[8]);
      if (!b || (ws->float_data.size() != 1 && ws->float_data.size() != values(*b).size())) return false;
      // ONNX QLinearConv: the int32 bias is quantised with scale x_scale * w_scale[k], zero point 0.
      Tensor& bf = new_tensor(g, base + ".b_f", b->shape);
      bf.is_constant = true;
      const std::vector<float> bv = values(*b), xsv = values(*xs), wsv = values(*ws);
      for (std::size_t k = 0; k < bv.size(); ++k)
        bf.float_data.push_back(bv[k] * xsv[0] * wsv[wsv.size() == 1 ? 0 : k]);
      op.inputs.push_back(bf.name);
    }
  }
  nodes.push_back(op);
  nodes.push_back(make_node(base + ".q_y", "QuantizeLinear", {y_f, q.inputs[6], q.inputs[7]}, {q.outputs[0]}));
  g.nodes.erase(g.nodes.begin() + std::ptrdiff_t(i));
  g.nodes.insert(g.nodes.begin() + std::ptrdiff_t(i), nodes.begin(), nodes.end());
  return true;
}

/// DequantizeLinear of a constant at `i` as a float constant; false when not applicable.
bool fold_constant_dq(Graph& g, std::size_t i) {
  const Node& n = g.nodes[i];
  if (n.op_type != "DequantizeLinear" || n.inputs.empty() || n.outputs.size() != 1) return false;
  const Tensor* x = constant(g, n.inputs[0]);
  if (!x || x->int_data.empty()) return false;
  const auto q = params_of(g, n, x->shape.size());
  if (!q || !g.has_tensor(n.outputs[0])) return false;
  // Per-tensor, or one scale per index of the axis (ONNX); anything else is left alone.
  if (q->scale.size() != 1) {
    if (q->axis < 0 || q->axis >= std::int64_t(x->shape.size()) ||
        std::int64_t(q->scale.size()) != x->shape[std::size_t(q->axis)])
      return false;
  }
  if (x->elements() != std::int64_t(x->int_data.size())) return false;
  Tensor& out = g.tensor(n.outputs[0]);
  out.is_constant = true;
  out.type = ElemType::Float32;
  out.shape = x->shape;
  out.float_data.resize(x->int_data.size());
  for (std::size_t e = 0; e < x->int_data.size(); ++e) {
    const std::size_t c = channel_of(*q, x->shape, e);
    out.float_data[e] = float(x->int_data[e] - q->zero_point[c]) * q->scale[c];
  }
  out.quant = *q;
  out.quant->type = x->type;
  g.nodes.erase(g.nodes.begin() + std::ptrdiff_t(i));
  return true;
}

/// QuantizeLinear / DequantizeLinear at `i` removed as an alias of its input; false when
/// it must stay (non-constant parameters, or no way to keep the names of graph tensors).
bool remove_alias(Graph& g, std::size_t i) {
  const Node n = g.nodes[i];
  if ((n.op_type != "QuantizeLinear" && n.op_type != "DequantizeLinear") || n.outputs.size() != 1 || n.inputs.empty())
    return false;
  const std::string a = n.inputs[0], b = n.outputs[0];
  if (constant(g, a) || !g.has_tensor(a) || !g.has_tensor(b)) return false;
  auto q = params_of(g, n, g.tensor(a).shape.size());
  if (!q) return false;
  if (n.op_type == "DequantizeLinear" && g.tensor(a).type != ElemType::Float32) q->type = g.tensor(a).type;
  // A QuantizeLinear's integers may only go on to DequantizeLinear (which this removes too)
  // or out of the graph: any other reader would get floats where it expects integers.
  if (n.op_type == "QuantizeLinear")
    for (std::size_t c : g.consumers(b))
      if (g.nodes[c].op_type != "DequantizeLinear") return false;
  std::string kept;
  if (!is_graph_output(g, b)) {
    for (std::size_t c : g.consumers(b))
      for (std::string& in : g.nodes[c].inputs)
        if (in == b) in = a;
    kept = a;
  } else if (!is_graph_input(g, a) && !is_graph_output(g, a) && g.producer(a) && g.consumers(a).size() == 1) {
    for (std::string& out : g.nodes[*g.producer(a)].outputs)
      if (out == a) out = b;
    kept = b;
  } else {
    return false;
  }
  const std::string gone = kept == a ? b : a;
  Tensor& t = g.tensor(kept);
  if (!is_graph_input(g, kept)) t.type = ElemType::Float32;  // an NPU activation, like any other
  if (!t.quant) t.quant = *q;
  g.nodes.erase(g.nodes.begin() + std::ptrdiff_t(i));
  g.tensors.erase(gone);
  return true;
}

}  // namespace

QdqFolding fold_qdq(Graph& graph) {
  QdqFolding r;
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    const std::string& op = graph.nodes[i].op_type;
    if ((op == "QLinearConv" || op == "QLinearMatMul") && rewrite_qlinear(graph, i)) {
      ++r.qlinear_ops;
      i += 3;  // past the four nodes it became
    }
  }
  for (std::size_t i = 0; i < graph.nodes.size();) {
    if (fold_constant_dq(graph, i)) ++r.dequantized_constants;
    else ++i;
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t i = 0; i < graph.nodes.size();) {
      if (remove_alias(graph, i)) {
        ++r.removed_qdq;
        changed = true;
      } else {
        ++i;
      }
    }
  }
  return r;
}

// ---- the pass ----------------------------------------------------------------------------

/// fold-qdq: quantised models' Q/DQ pairs and QLinear ops folded, their parameters kept.
class FoldQdq : public ImportPass {
 public:
  std::string name() const override { return "fold-qdq"; }
  std::string description() const override {
    return "fold QuantizeLinear/DequantizeLinear pairs and QLinear ops into float ops that keep their int8 "
           "parameters";
  }
  std::vector<Decision> run(Graph& graph, const PassContext& ctx) const override {
    const QdqFolding f = fold_qdq(graph);
    return {summary_decision(name(), ctx.model,
                             "rewrote " + std::to_string(f.qlinear_ops) + " QLinear op(s), dequantized " +
                                 std::to_string(f.dequantized_constants) + " constant(s), removed " +
                                 std::to_string(f.removed_qdq) + " Q/DQ node(s)")};
  }
};

NPU_REGISTER_PASS(FoldQdq, 200);

}  // namespace npu::compiler
