// Vector-unit op family: element-wise math (Erf, Exp, Sqrt, Reciprocal, Tanh, Abs, Neg, Gelu in
// its erf and tanh forms, Pow by a constant, Log, Floor, Ceil, Not), the row-wise Softmax,
// LayerNormalization and RMSNormalization, and the binary element-wise ops with numpy
// broadcasting (Add, Sub, Mul, Div, Pow, Max, Min; the comparisons Equal, Less, Greater,
// LessOrEqual, GreaterOrEqual and the logic And, Or, Xor, giving 0/1; Mod). Cast is in
// cast_ops.cpp.
#include <algorithm>

#include "backend/lowering/lowering_table.hpp"
#include "npu/compiler/transforms/pass.hpp"

namespace npu::compiler::lowering {

namespace {

using Shape = std::vector<std::int64_t>;

isa::ActOp unary_act(const Node& n) {
  const std::string& op = n.op_type;
  if (op == "Erf") return isa::ActOp::Erf;
  if (op == "Exp") return isa::ActOp::Exp;
  if (op == "Sqrt") return isa::ActOp::Sqrt;
  if (op == "Reciprocal") return isa::ActOp::Reciprocal;
  if (op == "Tanh") return isa::ActOp::Tanh;
  if (op == "Abs") return isa::ActOp::Abs;
  if (op == "Neg") return isa::ActOp::Neg;
  if (op == "Gelu") return gelu_act(n.attr_string("approximate", "none"));
  if (op == "Log") return isa::ActOp::Log;
  if (op == "Floor") return isa::ActOp::Floor;
  if (op == "Ceil") return isa::ActOp::Ceil;
  if (op == "Not") return isa::ActOp::Not;
  return isa::ActOp::None;
}

std::string check_unary(const Graph& g, const Node& n) {
  if (n.op_type == "Gelu" && gelu_act(n.attr_string("approximate", "none")) == isa::ActOp::None)
    return "Gelu approximate='" + n.attr_string("approximate", "") + "' (ONNX allows 'none' and 'tanh')";
  return shapes_known(g, n);
}

void lower_unary(LowerCtx& ctx, const Node& n) {
  const Graph& g = ctx.graph();
  LayerSpec L = ctx.base(n, LayerKind::Act);
  L.inputs = {n.inputs[0]};
  L.act = unary_act(n);
  const Shape& s = g.tensor(n.inputs[0]).shape;
  L.channels = s.size() >= 2 ? int(s[1]) : 1;
  L.elems = elements(g, n.inputs[0]);
  ctx.finish(L);
}

// Rows of a row-wise op over the last axis: [rows, D].
std::pair<std::uint64_t, std::uint64_t> rows_of(const Graph& g, const std::string& t) {
  const Shape& s = g.tensor(t).shape;
  const std::uint64_t d = s.empty() ? 1 : std::uint64_t(s.back());
  return {d ? elements(g, t) / d : 0, d};
}

std::int64_t norm_axis(std::int64_t a, std::size_t rank) { return a < 0 ? a + std::int64_t(rank) : a; }

std::string check_softmax(const Graph& g, const Node& n) {
  if (auto r = shapes_known(g, n); !r.empty()) return r;
  const Shape& s = g.tensor(n.inputs[0]).shape;
  const std::int64_t axis = norm_axis(n.attr_int("axis", -1), s.size());
  // Softmax-13 normalises one axis; before 13 it flattens from `axis` on: both are the last
  // axis's rows when axis is the last one.
  if (axis != std::int64_t(s.size()) - 1)
    return "Softmax over axis " + std::to_string(axis) + " of " + shape_string(s) +
           " (the vector unit normalises rows of the last axis)";
  return "";
}

void lower_rowwise(LowerCtx& ctx, const Node& n, isa::ActOp op) {
  const Graph& g = ctx.graph();
  LayerSpec L = ctx.base(n, LayerKind::Act);
  L.inputs = {n.inputs[0]};
  L.act = op;
  const auto [rows, d] = rows_of(g, n.inputs[0]);
  L.channels = int(rows);
  L.elems = rows * d;
  L.residual = n.attr_string(fused_attr::kResidualIn, "");  // fuse-add-layernorm: added first
  if (op == isa::ActOp::LayerNorm || op == isa::ActOp::RmsNorm) {
    L.act_alpha = n.attr_float("epsilon", 1e-5f);
    L.scale_shift = n.name + (op == isa::ActOp::LayerNorm ? ".gamma_beta" : ".gamma");  // isa::act_param_elems
    ctx.touch_param(L.scale_shift, isa::act_param_elems(op, L.channels, L.elems) * isa::kParamElemBytes);
  }
  ctx.finish(L);
}

void lower_softmax(LowerCtx& ctx, const Node& n) { lower_rowwise(ctx, n, isa::ActOp::Softmax); }

// LayerNormalization and RMSNormalization (same axis rule and constant scale/bias inputs).
std::string check_layernorm(const Graph& g, const Node& n) {
  if (auto r = shapes_known(g, n); !r.empty()) return r;
  const Shape& s = g.tensor(n.inputs[0]).shape;
  const std::int64_t axis = norm_axis(n.attr_int("axis", -1), s.size());
  if (axis != std::int64_t(s.size()) - 1)
    return n.op_type + " over axes " + std::to_string(axis) + ".. of " + shape_string(s) +
           " (the vector unit normalises rows of the last axis)";
  for (std::size_t i = 1; i < n.inputs.size(); ++i)
    if (!n.inputs[i].empty() && !is_const(g, n.inputs[i])) return n.op_type + " scale/bias computed at run time";
  std::size_t outs = 0;
  for (const auto& o : n.outputs) outs += o.empty() ? 0 : 1;
  if (outs > 1) return n.op_type + " with its Mean/InvStdDev outputs (training form)";
  return "";
}

void lower_layernorm(LowerCtx& ctx, const Node& n) { lower_rowwise(ctx, n, isa::ActOp::LayerNorm); }
void lower_rmsnorm(LowerCtx& ctx, const Node& n) { lower_rowwise(ctx, n, isa::ActOp::RmsNorm); }

// ---- binary element-wise with broadcasting ----

/// How operand `b` broadcasts against the output shape `out`: b's non-unit axes must be one
/// contiguous run of `out`'s axes [i0, i1] with equal sizes. Then element i of the output
/// uses b[(i / inner) % count] with count = prod(out[i0..i1]), inner = prod(out[i1+1..]).
struct Bcast {
  bool ok = false;
  std::uint64_t count = 0, inner = 1;
  /// Leading axes on which b is full: the op splits into `outer` layers, layer i on the
  /// i-th block of `block` output elements and the i-th block of `b_block` b elements
  /// ([1,16,6,49,49] + [1,16,1,49,49]: 16 layers of [6,49,49] + [1,49,49]).
  std::uint64_t outer = 1, block = 0, b_block = 0;
};

Bcast contiguous_pattern(const Shape& out, const Shape& b);

// The contiguous pattern, or failing that, the same on the axes after the longest prefix on
// which b equals the output (split into one layer per prefix index).
Bcast broadcast_pattern(const Shape& out, const Shape& b) {
  Bcast r = contiguous_pattern(out, b);
  if (r.ok || b.size() > out.size()) return r;
  const std::size_t off = out.size() - b.size();
  Shape bp(off, 1);
  bp.insert(bp.end(), b.begin(), b.end());
  for (std::size_t p = out.size() - 1; p >= 1; --p) {
    bool prefix_full = true;
    for (std::size_t d = 0; d < p; ++d) prefix_full = prefix_full && bp[d] == out[d];
    if (!prefix_full) continue;
    Bcast inner = contiguous_pattern(Shape(out.begin() + std::int64_t(p), out.end()),
                                     Shape(bp.begin() + std::int64_t(p), bp.end()));
    if (!inner.ok) continue;
    inner.outer = 1;
    for (std::size_t d = 0; d < p; ++d) inner.outer *= std::uint64_t(out[d]);
    inner.block = 1;
    inner.b_block = 1;
    for (std::size_t d = p; d < out.size(); ++d) {
      inner.block *= std::uint64_t(out[d]);
      inner.b_block *= std::uint64_t(bp[d]);
    }
    if (inner.outer > 4096) return r;
    return inner;
  }
  return r;
}

Bcast contiguous_pattern(const Shape& out, const Shape& b) {
  Bcast r;
  if (b.size() > out.size()) return r;
  const std::size_t off = out.size() - b.size();
  int i0 = -1, i1 = -1;
  for (std::size_t d = 0; d < out.size(); ++d) {
    const std::int64_t bd = d < off ? 1 : b[d - off];
    if (bd == 1 && out[d] != 1) continue;
    if (bd != out[d]) return r;
    if (out[d] == 1) continue;
    if (i1 >= 0 && i1 != int(d) - 1) return r;  // not contiguous
    if (i0 < 0) i0 = int(d);
    i1 = int(d);
  }
  r.ok = true;
  r.count = 1;
  if (i0 >= 0)
    for (int d = i0; d <= i1; ++d) r.count *= std::uint64_t(out[std::size_t(d)]);
  for (std::size_t d = std::size_t(i1 + 1); d < out.size(); ++d) r.inner *= std::uint64_t(out[d]);
  return r;
}

// The comparison and logic ops: their ELTWISE op with a in the first operand, or with the
// operands swapped (a < b is b > a). false for another op.
bool compare_or_logic(const std::string& op, bool swap, isa::EltwiseOp& out) {
  using E = isa::EltwiseOp;
  if (op == "Equal") out = E::Equal;
  else if (op == "Less") out = swap ? E::Greater : E::Less;
  else if (op == "Greater") out = swap ? E::Less : E::Greater;
  else if (op == "LessOrEqual") out = swap ? E::GreaterEqual : E::LessEqual;
  else if (op == "GreaterOrEqual") out = swap ? E::LessEqual : E::GreaterEqual;
  else if (op == "And") out = E::And;
  else if (op == "Or") out = E::Or;
  else if (op == "Xor") out = E::Xor;
  else return false;
  return true;
}

struct BinaryPlan {
  std::string problem;
  bool swap = false;        // a is the broadcast operand: b <-> a, with the reversed op
  isa::EltwiseOp op = isa::EltwiseOp::Add;
  Bcast b;
};

BinaryPlan plan_binary(const Graph& g, const Node& n) {
  BinaryPlan p;
  if (n.inputs.size() != 2) {
    p.problem = n.op_type + " with " + std::to_string(n.inputs.size()) + " inputs";
    return p;
  }
  if (auto r = shapes_known(g, n); !r.empty()) {
    p.problem = r;
    return p;
  }
  const Shape& a = g.tensor(n.inputs[0]).shape;
  const Shape& b = g.tensor(n.inputs[1]).shape;
  const Shape& out = g.tensor(n.outputs[0]).shape;
  const std::string& op = n.op_type;
  const bool a_full = g.tensor(n.inputs[0]).elements() == g.tensor(n.outputs[0]).elements();
  const bool b_full = g.tensor(n.inputs[1]).elements() == g.tensor(n.outputs[0]).elements();
  if (!a_full && !b_full) {
    p.problem = "both operands broadcast (" + shape_string(a) + " x " + shape_string(b) + ")";
    return p;
  }
  p.swap = !a_full;
  const Shape& small = p.swap ? a : b;
  if (!(p.swap ? a_full : b_full)) {
    p.b = broadcast_pattern(out, small);
    if (!p.b.ok) {
      p.problem = "broadcasting " + op + " " + shape_string(a) + " x " + shape_string(b) +
                  " (the vector unit broadcasts one operand over a contiguous run of axes)";
      return p;
    }
  }
  using E = isa::EltwiseOp;
  if (op == "Add") p.op = E::Add;
  else if (op == "Mul") p.op = E::Mul;
  else if (op == "Max") p.op = E::Max;
  else if (op == "Min") p.op = E::Min;
  else if (op == "Sub") p.op = p.swap ? E::RSub : E::Sub;
  else if (op == "Div") p.op = p.swap ? E::RDiv : E::Div;
  else if (op == "Pow") {
    if (p.swap) p.problem = "Pow with a broadcast base";
    p.op = E::Pow;
  } else if (!compare_or_logic(op, p.swap, p.op)) {
    if (p.swap) p.problem = "Mod with a broadcast dividend (the vector unit broadcasts the divisor only)";
    p.op = n.attr_int("fmod", 0) ? E::FMod : E::Mod;
    const ElemType t = g.tensor(n.inputs[0]).type;
    if (p.op == E::Mod && (t == ElemType::Float32 || t == ElemType::Float16))
      p.problem = "Mod with fmod=0 on floating-point inputs (ONNX requires fmod=1 for them; the reference refuses it too)";
  }
  return p;
}

// Pow by a constant scalar exponent is an activation (x^alpha), not a two-operand op.
bool pow_by_scalar(const Graph& g, const Node& n, float& exponent) {
  if (n.op_type != "Pow" || n.inputs.size() != 2 || !is_const(g, n.inputs[1])) return false;
  const Tensor& e = g.tensor(n.inputs[1]);
  if (e.elements() != 1) return false;
  exponent = e.float_data.empty() ? float(e.int_data.at(0)) : e.float_data[0];
  return true;
}

std::string check_binary(const Graph& g, const Node& n) {
  float ex;
  if (pow_by_scalar(g, n, ex)) return shapes_known(g, n);
  return plan_binary(g, n).problem;
}

void lower_binary(LowerCtx& ctx, const Node& n) {
  const Graph& g = ctx.graph();
  float exponent = 0;
  if (pow_by_scalar(g, n, exponent)) {
    LayerSpec L = ctx.base(n, LayerKind::Act);
    L.inputs = {n.inputs[0]};
    L.act = isa::ActOp::Pow;
    L.act_alpha = exponent;
    const Shape& s = g.tensor(n.inputs[0]).shape;
    L.channels = s.size() >= 2 ? int(s[1]) : 1;
    L.elems = elements(g, n.inputs[0]);
    return ctx.finish(L);
  }
  const BinaryPlan p = plan_binary(g, n);
  if (!p.problem.empty()) ctx.fail(n, p.problem);
  LayerSpec L = ctx.base(n, LayerKind::Eltwise);
  L.inputs = p.swap ? std::vector<std::string>{n.inputs[1], n.inputs[0]}
                    : std::vector<std::string>{n.inputs[0], n.inputs[1]};
  L.eltwise = p.op;
  const Shape& s = g.tensor(n.outputs[0]).shape;
  L.channels = s.size() >= 2 ? int(s[1]) : 1;
  L.elems = elements(g, n.outputs[0]);
  if (p.b.ok) {
    L.b_elems = p.b.count;
    L.b_inner = p.b.inner;
  }
  if (p.b.ok && p.b.outer > 1) {
    // One layer per leading index: its blocks of a, b and the output as byte ranges.
    const std::uint64_t e = std::uint64_t(ctx.elem_bytes());
    for (std::uint64_t i = 0; i < p.b.outer; ++i) {
      LayerSpec Li = L;
      Li.name = L.name + ":" + std::to_string(i);
      Li.inputs = {ctx.subview(L.inputs[0], i * p.b.block * e, p.b.block * e),
                   ctx.subview(L.inputs[1], i * p.b.b_block * e, p.b.b_block * e)};
      Li.output = ctx.subview(L.output, i * p.b.block * e, p.b.block * e);
      Li.elems = p.b.block;
      ctx.finish(Li);
    }
    return;
  }
  ctx.finish(L);
}

}  // namespace

void add_vector_ops(std::map<std::string, OpLowering>& t) {
  for (const char* op : {"Erf", "Exp", "Sqrt", "Reciprocal", "Tanh", "Abs", "Neg", "Gelu", "Log", "Floor", "Ceil", "Not"})
    t[op] = OpLowering{check_unary, lower_unary, nullptr};
  t["Softmax"] = OpLowering{check_softmax, lower_softmax, nullptr};
  t["LayerNormalization"] = OpLowering{check_layernorm, lower_layernorm, nullptr};
  t["RMSNormalization"] = OpLowering{check_layernorm, lower_rmsnorm, nullptr};
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Equal", "Less", "Greater", "LessOrEqual",
                         "GreaterOrEqual", "And", "Or", "Xor", "Mod"})
    t[op] = OpLowering{check_binary, lower_binary, nullptr};
}

}  // namespace npu::compiler::lowering
