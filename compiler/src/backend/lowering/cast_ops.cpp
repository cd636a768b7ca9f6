// Cast on the vector unit (issue 28 kind 8: the detection heads' index and box arithmetic).
// The NPU holds every tensor, booleans and integers included, as values of the activation
// type (0/1 for booleans), so a Cast is at most one ACT pass, chosen by the value map:
//   to a float type, or integer/bool -> integer: the values do not change, so the output is a
//   zero-copy view of the input (no code, as a Reshape; torchvision's RoIAlign `.to(dtype)`);
//   float -> integer: trunc (ONNX Cast rounds toward zero);
//   non-bool -> bool: to_bool (1 where x != 0).
// Integers above 2^24 are not exact in fp32 (the activation type), as for any other op here.
#include "backend/lowering/lowering_table.hpp"

namespace npu::compiler::lowering {

namespace {

bool is_float(ElemType t) { return t == ElemType::Float32 || t == ElemType::Float16; }

// The ONNX TensorProto data type of Cast's `to` (onnx.proto: 1 FLOAT, 9 BOOL, 10 FLOAT16,
// 11 DOUBLE, 16 BFLOAT16 are the non-integer ones).
bool to_float(std::int64_t to) { return to == 1 || to == 10 || to == 11 || to == 16; }

isa::ActOp cast_act(const Graph& g, const Node& n) {
  const ElemType from = g.tensor(n.inputs.at(0)).type;
  const std::int64_t to = n.attr_int("to", 1);
  if (to == 9) return from == ElemType::Bool ? isa::ActOp::Identity : isa::ActOp::ToBool;
  if (to_float(to) || !is_float(from)) return isa::ActOp::Identity;
  return isa::ActOp::Trunc;
}

// Casts whose ONNX result the NPU's fp32 values would not reproduce stay on the host, saying why:
// a missing or unknown `to`, float -> float16 / bfloat16 (rounding and overflow to inf), and
// anything -> an integer narrower than 32 bits (wraparound).
std::string cast_problem(const Graph& g, const Node& n) {
  if (!n.attrs.count("to")) return "Cast without its required 'to' attribute";
  const std::int64_t to = n.attr_int("to", 1);
  const bool known = to == 1 || (to >= 2 && to <= 7) || (to >= 9 && to <= 13) || to == 16;
  if (!known) return "Cast to ONNX type " + std::to_string(to) + " (not a number or bool type the NPU holds)";
  if ((to == 10 || to == 16) && is_float(g.tensor(n.inputs[0]).type) && g.tensor(n.inputs[0]).type != ElemType::Float16)
    return "Cast to float16/bfloat16 (rounds and may overflow to inf; the NPU keeps fp32 values unchanged)";
  if (to == 2 || to == 3 || to == 4 || to == 5)
    return "Cast to an 8- or 16-bit integer type (wraps around; the NPU keeps the values unchanged)";
  return "";
}

std::string check_cast(const Graph& g, const Node& n) {
  if (n.inputs.empty() || n.outputs.empty()) return "Cast without an input or output";
  if (auto r = cast_problem(g, n); !r.empty()) return r;
  return shapes_known(g, n);
}

void lower_cast(LowerCtx& ctx, const Node& n) {
  const Graph& g = ctx.graph();
  LayerSpec L = ctx.base(n, LayerKind::Act);
  L.inputs = {n.inputs[0]};
  L.act = cast_act(g, n);
  const std::vector<std::int64_t>& s = g.tensor(n.inputs[0]).shape;
  L.channels = s.size() >= 2 ? int(s[1]) : 1;
  L.elems = elements(g, n.inputs[0]);
  ctx.finish(L);
}

// A value-preserving Cast is a view of its input (offset 0); the others compute.
std::vector<std::uint64_t> cast_view(const Graph& g, const Node& n) {
  if (cast_act(g, n) == isa::ActOp::Identity) return {0};
  return {};
}

}  // namespace

void add_cast_ops(std::map<std::string, OpLowering>& t) { t["Cast"] = OpLowering{check_cast, lower_cast, cast_view}; }

}  // namespace npu::compiler::lowering
