// select-where: a Where whose condition is a constant and one of whose two values is a
// constant (the causal mask of Hugging-Face-style attention exports: Where(mask, scores,
// -3.4e38)) becomes two element-wise ops with constant operands, which the vector unit runs:
//
//     Where(c, x, k) = x * M + K     M = c ? 1 : 0,  K = c ? 0 : k
//     Where(c, k, x) = x * M + K     M = c ? 0 : 1,  K = c ? k : 0
//
// The values are exact for a finite x: x * 1 + 0 = x (up to the sign of a zero), x * 0 + k = k.
// (An infinite or NaN x on a masked-out place gives NaN where Where gave k; scores are
// finite.) M and K take the broadcast shape of c and k, so their product with x has Where's
// output shape (ONNX broadcasting). Issue 28, kind 7: the Where went to the host, which took
// every SRAM residency around attention with it. A Where with two constant values is folded
// by infer-shapes; one with a computed condition stays as it is (a host op, said by
// place-host-ops).
#include <optional>
#include <vector>

#include "npu/compiler/ir/fused_attr.hpp"
#include "npu/compiler/transforms/canonicalize/shape_inference.hpp"
#include "npu/compiler/transforms/pass_registry.hpp"

namespace npu::compiler {

namespace {

/// Element i of constant `t` as a double (float or integer storage), or nullopt when `t` is
/// no fully-known constant.
std::optional<std::vector<double>> constant_values(const Graph& g, const std::string& name) {
  if (name.empty() || !g.has_tensor(name)) return std::nullopt;
  const Tensor& t = g.tensor(name);
  if (!t.is_constant || t.quant || t.elements() < 0) return std::nullopt;
  const auto n = std::size_t(t.elements());
  if (t.float_data.size() == n) return std::vector<double>(t.float_data.begin(), t.float_data.end());
  if (t.int_data.size() == n) return std::vector<double>(t.int_data.begin(), t.int_data.end());
  return std::nullopt;
}

/// Index into a tensor of `shape` of element `i` of a tensor of the broadcast shape `out`
/// (numpy broadcasting: shapes aligned on the right, a dimension of 1 repeats).
std::size_t broadcast_index(std::int64_t i, const std::vector<std::int64_t>& out, const std::vector<std::int64_t>& shape) {
  std::int64_t index = 0, stride = 1;
  for (std::size_t k = 0; k < out.size(); ++k) {
    const std::size_t od = out.size() - 1 - k;
    const std::int64_t coord = i % out[od];
    i /= out[od];
    if (k < shape.size()) {
      const std::int64_t d = shape[shape.size() - 1 - k];
      if (d != 1) index += coord * stride;
      stride *= d;
    }
  }
  return std::size_t(index);
}

/// A new float constant named `name` of `shape` holding `v`.
std::string add_constant(Graph& g, const std::string& name, const std::vector<std::int64_t>& shape,
                         const std::vector<double>& v) {
  Tensor t;
  t.name = name;
  t.shape = shape;
  t.is_constant = true;
  for (double x : v) t.float_data.push_back(float(x));
  g.tensors[name] = t;
  return name;
}

/// Rewrites Where node `i` into Mul + Add when it qualifies; true if it did.
bool select_where(Graph& g, std::size_t i) {
  const Node w = g.nodes[i];
  if (w.op_type != "Where" || w.inputs.size() != 3 || w.outputs.size() != 1 || w.on_host) return false;
  const auto cond = constant_values(g, w.inputs[0]);
  const auto a = constant_values(g, w.inputs[1]), b = constant_values(g, w.inputs[2]);
  if (!cond || bool(a) == bool(b)) return false;  // computed condition, or two constants / none
  const bool x_if_true = !a;                        // the computed value is taken where c holds
  const std::string& x = w.inputs[x_if_true ? 1 : 2];
  const std::string& k = w.inputs[x_if_true ? 2 : 1];
  const Tensor& xt = g.tensor(x);
  if (xt.type != ElemType::Float32 || xt.quant || !xt.shape_known()) return false;
  const auto shape = broadcast_shapes(g.tensor(w.inputs[0]).shape, g.tensor(k).shape);
  if (!shape) return false;
  std::int64_t n = 1;
  for (auto d : *shape) n *= d;
  std::vector<double> m(static_cast<std::size_t>(n)), add(static_cast<std::size_t>(n));
  const auto& kv = x_if_true ? *b : *a;
  for (std::int64_t e = 0; e < n; ++e) {
    const bool c = (*cond)[broadcast_index(e, *shape, g.tensor(w.inputs[0]).shape)] != 0;
    const double kval = kv[broadcast_index(e, *shape, g.tensor(k).shape)];
    const bool take_x = c == x_if_true;
    m[std::size_t(e)] = take_x ? 1.0 : 0.0;
    add[std::size_t(e)] = take_x ? 0.0 : kval;
  }
  Node mul, sum;
  mul.name = w.name + ".select";
  mul.op_type = "Mul";
  mul.inputs = {x, add_constant(g, w.name + ".keep", *shape, m)};
  mul.outputs = {w.name + ".kept"};
  sum.name = w.name;
  sum.op_type = "Add";
  sum.inputs = {mul.outputs[0], add_constant(g, w.name + ".fill", *shape, add)};
  sum.outputs = w.outputs;
  Tensor kept = g.tensor(w.outputs[0]);
  kept.name = mul.outputs[0];
  g.tensors[kept.name] = kept;
  g.nodes[i] = std::move(mul);
  g.nodes.insert(g.nodes.begin() + std::ptrdiff_t(i) + 1, std::move(sum));
  return true;
}

}  // namespace

/// The import pass (order 520: after merge-pads, before recognise-kv-cache and placement).
class SelectWhere : public ImportPass {
 public:
  std::string name() const override { return "select-where"; }
  std::string description() const override {
    return "a Where with a constant condition and one constant value (an attention mask) as a Mul and an Add by "
           "constants on the vector unit";
  }
  std::vector<Decision> run(Graph& graph, const PassContext& ctx) const override {
    int n = 0;
    for (std::size_t i = 0; i < graph.nodes.size(); ++i)
      if (select_where(graph, i)) ++n;
    remove_unused_tensors(graph);
    return {summary_decision(name(), ctx.model,
                             "rewrote " + std::to_string(n) + " constant-condition Where(s) as Mul + Add by constants")};
  }
};

NPU_REGISTER_PASS(SelectWhere, 520);

}  // namespace npu::compiler
