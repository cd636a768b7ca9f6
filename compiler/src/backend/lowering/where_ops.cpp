// Where with a computed condition on the vector unit (issue 28 kind 8: RetinaNet's box
// decoding). A constant condition is the select-where pass's (x * M + K). Here the condition
// c is a 0/1 tensor the program computes (a comparison or logic op), and
//   Where(c, x, y) = x * c + y * not(c)
// is four vector passes: ACT not(c), ELTWISE x * c, ELTWISE y * not(c), ELTWISE add. It is exact
// for finite x and y (x * 1 = x, y * 0 = 0, x + 0 = x); an infinite or NaN value on the side
// not chosen gives NaN (inf * 0). Every operand must have the output's size (no broadcast).
#include <cmath>

#include "backend/lowering/lowering_table.hpp"
#include "npu/compiler/ir/fused_attr.hpp"

namespace npu::compiler::lowering {

namespace {

std::string check_where(const Graph& g, const Node& n) {
  if (n.inputs.size() != 3 || n.outputs.size() != 1) return "Where without 3 inputs and 1 output";
  if (auto r = shapes_known(g, n); !r.empty()) return r;
  const std::int64_t out = g.tensor(n.outputs[0]).elements();
  for (const auto& in : n.inputs)
    if (g.tensor(in).elements() != out)
      return "Where with a broadcast operand '" + in + "' " + shape_string(g.tensor(in).shape) + " (output " +
             shape_string(g.tensor(n.outputs[0]).shape) + "; the vector-unit select needs every operand at the output's size)";
  // x c + y (1 - c) is NaN where the side not chosen is +-inf or NaN (inf x 0): a constant
  // such side (a -inf score mask) would give a silent wrong value, so it stays on the host.
  for (std::size_t i = 1; i < 3; ++i) {
    const Tensor& t = g.tensor(n.inputs[i]);
    if (!t.is_constant) continue;
    for (float v : t.float_data)
      if (!std::isfinite(v))
        return "Where with a non-finite constant operand '" + n.inputs[i] +
               "' (the vector-unit select computes x c + y (1 - c), which gives NaN where the other side is chosen)";
  }
  return "";
}

void lower_where(LowerCtx& ctx, const Node& n) {
  const Graph& g = ctx.graph();
  const std::vector<std::int64_t>& s = g.tensor(n.outputs[0]).shape;
  const std::uint64_t elems = elements(g, n.outputs[0]);
  const std::uint64_t bytes = elems * std::uint64_t(ctx.elem_bytes());
  const int channels = s.size() >= 2 ? int(s[1]) : 1;
  const std::string& c = n.inputs[0];
  const std::string not_c = ctx.temp_tensor(n.name + ".not_cond", bytes);
  const std::string xc = ctx.temp_tensor(n.name + ".x_cond", bytes);
  const std::string ync = ctx.temp_tensor(n.name + ".y_not_cond", bytes);
  LayerSpec N = ctx.base(n, LayerKind::Act);
  N.name += ":not";
  N.inputs = {c};
  N.output = not_c;
  N.act = isa::ActOp::Not;
  N.channels = channels;
  N.elems = elems;
  ctx.finish(N);
  auto eltwise = [&](const char* suffix, isa::EltwiseOp op, const std::string& a, const std::string& b,
                     const std::string& out) {
    LayerSpec L = ctx.base(n, LayerKind::Eltwise);
    L.name += suffix;
    L.inputs = {a, b};
    L.output = out;
    L.eltwise = op;
    L.channels = channels;
    L.elems = elems;
    ctx.finish(L);
  };
  eltwise(":x_cond", isa::EltwiseOp::Mul, n.inputs[1], c, xc);
  eltwise(":y_not_cond", isa::EltwiseOp::Mul, n.inputs[2], not_c, ync);
  eltwise("", isa::EltwiseOp::Add, xc, ync, n.outputs[0]);
}

}  // namespace

void add_where_ops(std::map<std::string, OpLowering>& t) { t["Where"] = OpLowering{check_where, lower_where, nullptr}; }

}  // namespace npu::compiler::lowering
