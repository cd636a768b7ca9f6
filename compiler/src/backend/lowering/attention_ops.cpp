// The fused attention (fuse-attention, ir/fused_attr.hpp kAttention) -> one Attention layer,
// generated FlashAttention-style by codegen/attention.cpp. ONNX's own Attention op (opset 23,
// K not transposed) has no NPU lowering yet: it goes to the host with that reason.
#include <algorithm>

#include "backend/lowering/lowering_table.hpp"
#include "npu/compiler/ir/fused_attr.hpp"

namespace npu::compiler::lowering {

namespace {

std::uint64_t batch_product(const std::vector<std::int64_t>& s) {
  std::uint64_t p = 1;
  for (std::size_t i = 0; i + 2 < s.size(); ++i) p *= std::uint64_t(s[i]);
  return p;
}

std::string check_attention(const Graph& g, const Node& n) {
  if (n.attr_int(fused_attr::kAttention, 0) != 1)
    return "ONNX Attention (opset 23) has no NPU lowering; export the model at an opset below 23, whose attention "
           "is MatMul, Softmax and MatMul (fuse-attention fuses those)";
  return shapes_known(g, n);
}

using Dims = std::vector<std::int64_t>;

// K^T = Transpose(X, perm) with perm[2] = 3: X's packed strides for K's batch, head and key axes.
void key_view(const Dims& x, const Dims& perm, AttentionGeom& a) {
  const std::uint64_t st[4] = {std::uint64_t(x[1] * x[2] * x[3]), std::uint64_t(x[2] * x[3]), std::uint64_t(x[3]), 1};
  a.key = {true, std::uint64_t(x[std::size_t(perm[1])]), st[perm[0]], st[perm[1]], st[perm[3]]};
  a.sk = std::uint64_t(x[std::size_t(perm[3])]);
}

// [..., rows, n] packed: every head's rows follow each other.
HeadView packed(const Dims& s) {
  const std::uint64_t rows = std::uint64_t(s[s.size() - 2]), n = std::uint64_t(s.back());
  return {false, batch_product(s), 0, rows * n, n};
}

// X [B, S, H, n] read (or written) as Transpose(X, perm 0,2,1,3) [B, H, S, n].
HeadView split_heads(const Dims& x) {
  const std::uint64_t h = std::uint64_t(x[2]), n = std::uint64_t(x[3]);
  return {true, h, std::uint64_t(x[1]) * h * n, n, h * n};
}

// Q's geometry: heads, rows and d from Q [..., Sq, d] or, under kQueryView, X [B, Sq, H, d].
void query_geometry(const Node& n, const Dims& q, AttentionGeom& a) {
  const bool view = n.attr_int(fused_attr::kQueryView, 0) == 1;
  a.query = view ? split_heads(q) : packed(q);
  a.heads = view ? std::uint64_t(q[0] * q[2]) : batch_product(q);
  a.sq = std::uint64_t(view ? q[1] : q[q.size() - 2]);
  a.d = std::uint64_t(q.back());
}

void lower_attention(LowerCtx& ctx, const Node& n) {
  const Graph& g = ctx.graph();
  const auto& kt = shape_of(g, n, n.inputs[1]);
  const auto& v = shape_of(g, n, n.inputs[2]);
  LayerSpec L = ctx.base(n, LayerKind::Attention);
  AttentionGeom& a = L.attention;
  query_geometry(n, shape_of(g, n, n.inputs[0]), a);
  a.sk = std::uint64_t(kt.back());
  a.dv = std::uint64_t(v.back());
  const std::vector<std::int64_t> perm = n.attr_ints(fused_attr::kKeyPerm);
  if (perm.size() == 4) key_view(kt, perm, a);
  a.value = n.attr_int(fused_attr::kValueView, 0) == 1 ? split_heads(v) : packed(v);
  a.out = n.attr_int(fused_attr::kOutView, 0) == 1 ? split_heads(shape_of(g, n, n.outputs[0]))
                                                    : HeadView{false, a.heads, 0, a.sq * a.dv, a.dv};
  a.group = std::uint64_t(std::max<std::int64_t>(n.attr_int(fused_attr::kKvGroup, 1), 1));
  a.causal_offset = n.attr_int(fused_attr::kCausalOffset, -1);
  L.inputs = {n.inputs[0], n.inputs[1], n.inputs[2]};
  if (n.inputs.size() > 3) L.residual = n.inputs[3];
  L.act_alpha = n.attr_float(fused_attr::kAttentionScale, 1.0f);
  L.output = n.outputs[0];
  L.macs = a.heads * a.sq * a.sk * (a.d + a.dv);  // Q K^T and P V, as the unfused MatMuls count them
  ctx.finish(L);
}

}  // namespace

void add_attention_ops(std::map<std::string, OpLowering>& t) {
  t["Attention"] = OpLowering{check_attention, lower_attention, nullptr};
}

}  // namespace npu::compiler::lowering
