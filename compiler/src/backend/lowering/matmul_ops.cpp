// MatMul family on the MAC array. Gemm (ONNX Gemm, A not transposed): A [M, K] x B [K, N]
// (transB: B [N, K]) plus a constant C of N elements, one GEMM with B as the weights.
// MatMul (numpy matmul semantics, ONNX MatMul): A [..., M, K] x B [..., K, N]. A constant 2-D B is a weight matrix: one GEMM with M = the product of A's
// leading axes (nn.Linear on a sequence). A computed B (attention's Q x K^T and scores x V)
// or batch axes on B: one GEMM per batch index, each reading its slices of A and B.
#include <algorithm>

#include "backend/lowering/lowering_table.hpp"
#include "backend/lowering/swiglu_lowering.hpp"
#include "npu/compiler/ir/fused_attr.hpp"
#include "npu/compiler/transforms/pass.hpp"

namespace npu::compiler::lowering {

namespace {

using Shape = std::vector<std::int64_t>;

std::uint64_t prod(const Shape& s, std::size_t begin, std::size_t end) {
  std::uint64_t p = 1;
  for (std::size_t i = begin; i < end; ++i) p *= std::uint64_t(s[i]);
  return p;
}

// fuse-gemm-epilogue's input 3: the tensor the epilogue adds (residual) or multiplies by (GLU gate).
void set_fused_residual(const Node& n, LayerSpec& L) {
  if (n.attr_int(fused_attr::kResidual, 0) == 0 || n.inputs.size() < 4) return;
  L.residual = n.inputs[3];
  L.residual_mul = n.attr_int(fused_attr::kResidualMul, 0) != 0;
}

// fuse-norm-prologue's row norm on A: the op, its epsilon and a parameter tensor of its own,
// "<node>.norm_params" (gamma[K] then beta[K], filled from inputs 4 and 5 by the DDR image).
void set_prologue(LowerCtx& ctx, const Node& n, LayerSpec& L) {
  const std::string op = n.attr_string(fused_attr::kPrologue, "");
  if (op.empty()) return;
  L.prologue = op == "LayerNormalization" ? isa::ActOp::LayerNorm : isa::ActOp::RmsNorm;
  L.prologue_eps = n.attr_float(fused_attr::kPrologueEps, 1e-5f);
  L.prologue_params = n.name + ".norm_params";
  ctx.touch_param(L.prologue_params, isa::act_param_elems(L.prologue, 1, std::uint64_t(L.geom.c_in)) *
                                         isa::kParamElemBytes);
}

// fuse-rope's rotary epilogue: head dim, positions and a table of its own, "<node>.rope_table"
// ([S, 2d] fp32: cos[d] then sin[d] per position, filled from inputs 6 and 7 by the DDR image).
void set_rope(LowerCtx& ctx, const Node& n, LayerSpec& L) {
  const std::int64_t d = n.attr_int(fused_attr::kRope, 0);
  if (d <= 0 || n.inputs.size() < 8) return;
  L.rope_dim = int(d);
  L.rope_positions = n.attr_int(fused_attr::kRopePositions, 1);
  L.rope_table = n.name + ".rope_table";
  ctx.touch_param(L.rope_table, std::uint64_t(L.rope_positions) * 2 * std::uint64_t(d) * isa::kParamElemBytes);
}

std::string check_matmul(const Graph& g, const Node& n) {
  // A third input is a bias fused by fuse-bias (a constant of N elements, or "" before a fused
  // residual); a fourth the residual or GLU gate fused by fuse-gemm-epilogue.
  // Six: fuse-norm-prologue's gamma and beta (or "") after a bias and a residual, each or "".
  // Eight: fuse-rope's cos and sin after those six slots.
  // Nine: fuse-swiglu's gate weights after those eight (fused_attr::kSwiglu).
  const bool swiglu = n.inputs.size() == fused_attr::kSwigluGateInput + 1 && n.attr_int(fused_attr::kSwiglu, 0) != 0;
  if (swiglu && !is_const(g, n.inputs[fused_attr::kSwigluGateInput])) return "SwiGLU gate weights are not a constant";
  const bool rope = (n.inputs.size() == 8 || swiglu) && n.attr_int(fused_attr::kRope, 0) > 0;
  const bool prologue = (n.inputs.size() == 6 || rope || swiglu) && !n.attr_string(fused_attr::kPrologue, "").empty();
  const bool wide = prologue || rope || swiglu;  // inputs past the bias are named slots, "" when absent
  const bool fused_res = (n.inputs.size() == 4 || wide) && n.attr_int(fused_attr::kResidual, 0) != 0;
  const bool bias_ok = n.inputs.size() < 3 || is_const(g, n.inputs[2]) || ((fused_res || wide) && n.inputs[2].empty());
  if ((n.inputs.size() != 2 && n.inputs.size() != 3 && !fused_res && !wide) || !bias_ok)
    return "MatMul with " + std::to_string(n.inputs.size()) + " inputs";
  if (auto r = shapes_known(g, n); !r.empty()) return r;
  const Shape& a = g.tensor(n.inputs[0]).shape;
  const Shape& b = g.tensor(n.inputs[1]).shape;
  if (a.size() < 2 || b.size() < 2)
    return "MatMul of a vector (" + shape_string(a) + " x " + shape_string(b) + "): reshape it to a matrix";
  if (is_const(g, n.inputs[0]) && !is_const(g, n.inputs[1]))
    return "MatMul with a constant A and a computed B";
  const Shape& o = g.tensor(n.outputs[0]).shape;
  // Batch axes: A's and B's must each equal the output's or be all 1 (no partial broadcast).
  const std::size_t ob = o.size() - 2;
  auto batch_ok = [&](const Shape& s) {
    const std::uint64_t sb = prod(s, 0, s.size() - 2);
    return sb == 1 || sb == prod(o, 0, ob);
  };
  if (!batch_ok(a) || !batch_ok(b)) return "MatMul with partially broadcast batch axes";
  if (prod(o, 0, ob) > 4096) return "MatMul with more than 4096 batch matrices";
  return "";
}

void lower_matmul(LowerCtx& ctx, const Node& n) {
  const Graph& g = ctx.graph();
  const Shape& a = g.tensor(n.inputs[0]).shape;
  const Shape& b = g.tensor(n.inputs[1]).shape;
  const Shape& o = g.tensor(n.outputs[0]).shape;
  const std::uint64_t k = std::uint64_t(a.back());
  const std::uint64_t nn = std::uint64_t(b.back());
  const std::uint64_t e = std::uint64_t(ctx.elem_bytes());
  const std::uint64_t b_batch = prod(b, 0, b.size() - 2);
  const bool weight_b = b_batch == 1 && is_const(g, n.inputs[1]);  // else B is computed: read row-major
  auto gemm = [&](const std::string& name, const std::string& in, const std::string& w, const std::string& out,
                  std::uint64_t m) {
    LayerSpec L = ctx.base(n, LayerKind::Gemm);
    L.name = name;
    set_fused_residual(n, L);
    ConvGeom& c = L.geom;
    c.h_in = c.h_out = int(m);
    c.c_in = int(k);
    c.c_out = int(nn);
    c.w_in = c.w_out = 1;
    c.gemm = true;
    c.b_row_major = !weight_b;  // a computed B is read as it is, row-major [K, N] (not pre-tiled)
    L.inputs = {in};
    L.weight = w;
    L.output = out;
    if (n.inputs.size() >= 3 && !n.inputs[2].empty()) L.bias = n.inputs[2];  // fuse-bias: the GEMM epilogue adds it
    set_prologue(ctx, n, L);
    set_rope(ctx, n, L);
    set_swiglu(ctx, n, L);
    ctx.finish_mac(n, L);
  };
  if (weight_b) {
    gemm(isa_name(n.name), n.inputs[0], n.inputs[1], n.outputs[0], prod(a, 0, a.size() - 1));
    return;
  }
  if (n.inputs.size() >= 4)  // fuse-gemm-epilogue and fuse-norm-prologue fuse only weight MatMuls
    throw ConfigError(n.name + ": internal error: a fused residual or prologue on a MatMul with a computed B");
  const std::uint64_t batches = prod(o, 0, o.size() - 2);
  const std::uint64_t m = std::uint64_t(a[a.size() - 2]);
  const std::uint64_t a_batch = prod(a, 0, a.size() - 2);
  for (std::uint64_t i = 0; i < batches; ++i) {
    const std::string tag = ":b" + std::to_string(i);
    const std::string in = ctx.subview(n.inputs[0], (a_batch == 1 ? 0 : i) * m * k * e, m * k * e);
    const std::string w = ctx.subview(n.inputs[1], (b_batch == 1 ? 0 : i) * k * nn * e, k * nn * e);
    const std::string out = ctx.subview(n.outputs[0], i * m * nn * e, m * nn * e);
    gemm(isa_name(n.name) + tag, in, w, out, m);
  }
}

std::string check_gemm(const Graph& g, const Node& n) {
  if (n.inputs.size() < 2 || !is_const(g, n.inputs[1])) return "Gemm with a non-constant B operand";
  if (!g.has_tensor(n.inputs[0]) || g.tensor(n.inputs[0]).shape.size() != 2 || g.tensor(n.inputs[1]).shape.size() != 2)
    return "Gemm on tensors that are not 2-D";
  if (n.attr_int("transA", 0) != 0) return "Gemm with transA=1";
  if (n.inputs.size() >= 3 && !n.inputs[2].empty()) {
    const std::int64_t nn = g.tensor(n.outputs[0]).shape.back();
    if (!is_const(g, n.inputs[2]) || g.tensor(n.inputs[2]).elements() != nn)
      return "Gemm C is not a constant vector of N elements";
  }
  return "";
}

void lower_gemm(LowerCtx& ctx, const Node& n) {
  const bool trans_b = n.attr_int("transB", 0) != 0;
  const auto& a = shape_of(ctx.graph(), n, n.inputs[0]);
  const auto& b = shape_of(ctx.graph(), n, n.inputs[1]);
  LayerSpec L = ctx.base(n, LayerKind::Gemm);
  ConvGeom& c = L.geom;
  c.h_in = c.h_out = int(a[0]);
  c.c_in = int(a[1]);
  c.c_out = int(trans_b ? b[0] : b[1]);
  c.w_in = c.w_out = 1;
  c.gemm = true;
  L.inputs = {n.inputs[0]};
  L.weight = n.inputs[1];
  if (n.inputs.size() >= 3 && !n.inputs[2].empty()) L.bias = n.inputs[2];
  set_fused_residual(n, L);
  set_prologue(ctx, n, L);
  set_rope(ctx, n, L);
  set_swiglu(ctx, n, L);
  ctx.finish_mac(n, L);
}

}  // namespace

void add_matmul_ops(std::map<std::string, OpLowering>& t) {
  t["MatMul"] = OpLowering{check_matmul, lower_matmul, nullptr};
  t["Gemm"] = OpLowering{check_gemm, lower_gemm, nullptr};
}

}  // namespace npu::compiler::lowering
