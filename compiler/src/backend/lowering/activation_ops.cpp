// Activation family on the ACT unit: Relu, Clip, LeakyRelu, Sigmoid, HardSigmoid, HardSwish, Tanh as
// layers of their own, the same functions fused into a Conv/Gemm/MatMul epilogue
// (fuse-activation), and an inference-form BatchNormalization as a per-channel scale and shift.
#include "backend/lowering/lowering_table.hpp"
#include "npu/compiler/ir/fused_attr.hpp"

namespace npu::compiler::lowering {

isa::ActOp act_from_name(const std::string& s) {
  if (s == "relu" || s == "Relu") return isa::ActOp::Relu;
  if (s == "clip" || s == "Clip") return isa::ActOp::Clip;
  if (s == "leaky_relu" || s == "LeakyRelu") return isa::ActOp::LeakyRelu;
  if (s == "sigmoid" || s == "Sigmoid") return isa::ActOp::Sigmoid;
  if (s == "silu") return isa::ActOp::Silu;
  if (s == "hard_sigmoid" || s == "HardSigmoid") return isa::ActOp::HardSigmoid;
  if (s == "hard_swish" || s == "HardSwish") return isa::ActOp::HardSwish;
  if (s == "gelu" || s == "Gelu") return isa::ActOp::Gelu;
  if (s == "gelu_tanh") return isa::ActOp::GeluTanh;
  if (s == "tanh" || s == "Tanh") return isa::ActOp::Tanh;
  return isa::ActOp::None;
}

isa::ActOp gelu_act(const std::string& approximate) {
  if (approximate == "none") return isa::ActOp::Gelu;
  if (approximate == "tanh") return isa::ActOp::GeluTanh;
  return isa::ActOp::None;
}

void epilogue_act(const Node& n, LayerSpec& L) {
  const std::string act = n.attr_string(fused_attr::kAct, "");
  if (act.empty()) return;
  L.act = act_from_name(act);
  const float lo = -3.4e38f, hi = 3.4e38f;
  if (L.act == isa::ActOp::Clip) {
    L.act_alpha = n.has_attr(fused_attr::kActAlpha) ? n.attr_float(fused_attr::kActAlpha, 0) : lo;
    L.act_beta = n.has_attr(fused_attr::kActBeta) ? n.attr_float(fused_attr::kActBeta, 0) : hi;
    // ONNX Clip: with min > max every value becomes max (Operators.md, Clip-13).
    if (L.act_alpha > L.act_beta) L.act_alpha = L.act_beta;
  } else {
    L.act_alpha = n.attr_float(fused_attr::kActAlpha, 0);
    L.act_beta = n.attr_float(fused_attr::kActBeta, 0);
  }
}

namespace {

std::string check_act(const Graph& g, const Node& n) {
  if (n.op_type == "Clip")
    for (std::size_t i = 1; i < n.inputs.size(); ++i)
      if (!n.inputs[i].empty() && !is_const(g, n.inputs[i])) return "Clip bound computed at run time";
  return "";
}

// Clip's bounds: attributes before opset 11, constant inputs after; absent: unbounded.
void clip_bounds(const Graph& g, const Node& n, LayerSpec& L) {
  L.act_alpha = -3.4e38f;
  L.act_beta = 3.4e38f;
  if (n.has_attr("min")) L.act_alpha = n.attr_float("min", 0);
  if (n.has_attr("max")) L.act_beta = n.attr_float("max", 0);
  if (n.inputs.size() > 1 && is_const(g, n.inputs[1]) && !g.tensor(n.inputs[1]).float_data.empty())
    L.act_alpha = g.tensor(n.inputs[1]).float_data[0];
  if (n.inputs.size() > 2 && is_const(g, n.inputs[2]) && !g.tensor(n.inputs[2]).float_data.empty())
    L.act_beta = g.tensor(n.inputs[2]).float_data[0];
  if (L.act_alpha > L.act_beta) L.act_alpha = L.act_beta;  // ONNX: min > max -> every value is max
}

void lower_act(LowerCtx& ctx, const Node& n) {
  const Graph& g = ctx.graph();
  const std::string& op = n.op_type;
  LayerSpec L = ctx.base(n, LayerKind::Act);
  const auto& s = shape_of(g, n, n.inputs[0]);
  L.inputs = {n.inputs[0]};
  L.act = act_from_name(op);
  L.channels = s.size() >= 2 ? int(s[1]) : 1;
  L.elems = std::uint64_t(g.tensor(n.inputs[0]).elements());
  if (op == "Clip") {
    clip_bounds(g, n, L);
  } else if (op == "LeakyRelu") {
    L.act_alpha = n.attr_float("alpha", 0.01f);
  } else if (op == "HardSigmoid") {
    L.act_alpha = n.attr_float("alpha", 0.2f);
    L.act_beta = n.attr_float("beta", 0.5f);
  }
  ctx.finish(L);
}

std::string check_batchnorm(const Graph& g, const Node& n) {
  std::size_t outs = 0;
  for (const auto& o : n.outputs) outs += o.empty() ? 0 : 1;
  if (outs != 1 || n.attr_int("training_mode", 0) != 0) return "training-form BatchNormalization";
  // NCDHW (after a Conv over NCDHW): channel c's D x H x W elements are contiguous, as an NCHW
  // channel's H x W are, so the per-channel scale/shift is the same ACT.
  if (g.has_tensor(n.inputs[0]) && g.tensor(n.inputs[0]).shape.size() == 5 && g.tensor(n.inputs[0]).shape[0] >= 1)
    return "";
  return rank4_batch1(g, n.inputs[0]);
}

void lower_batchnorm(LowerCtx& ctx, const Node& n) {
  const Graph& g = ctx.graph();
  LayerSpec L = ctx.base(n, LayerKind::Act);
  const auto& s = shape_of(g, n, n.inputs[0]);
  L.inputs = {n.inputs[0]};
  L.act = isa::ActOp::ScaleShift;
  L.channels = int(s[1]);
  L.elems = std::uint64_t(g.tensor(n.inputs[0]).elements());
  L.scale_shift = n.name + ".scale_shift";
  ctx.touch(n.inputs[0]);
  ctx.touch_param(L.scale_shift, 2ull * L.channels * isa::kParamElemBytes);
  if (s[0] > 1) {
    // A batch: one ACT layer per image (its channels' params are the same scale/shift).
    const std::uint64_t per = L.elems / std::uint64_t(s[0]) * std::uint64_t(ctx.elem_bytes());
    for (std::int64_t b = 0; b < s[0]; ++b) {
      LayerSpec Lb = L;
      Lb.name = L.name + ":n" + std::to_string(b);
      Lb.elems = L.elems / std::uint64_t(s[0]);
      Lb.inputs = {ctx.subview(n.inputs[0], std::uint64_t(b) * per, per)};
      Lb.output = ctx.subview(L.output, std::uint64_t(b) * per, per);
      ctx.finish(Lb);
    }
    return;
  }
  ctx.finish(L);
}

}  // namespace

void add_activation_ops(std::map<std::string, OpLowering>& t) {
  for (const char* op : {"Relu", "Clip", "LeakyRelu", "Sigmoid", "HardSigmoid", "HardSwish"})
    t[op] = OpLowering{check_act, lower_act, nullptr};
  t["BatchNormalization"] = OpLowering{check_batchnorm, lower_batchnorm, nullptr};
}

}  // namespace npu::compiler::lowering
