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
using U64s = std::vector<std::uint64_t>;

// Where a view input X's elements lie: X's own packed strides, or, when X is composed (a QKV
// Split's part, head-split by a Reshape: composed_views), the projection output's strides and
// the part's offset. The layer then reads that output; the Split and Reshape join its covers.
struct Placed {
  U64s stride;
  std::uint64_t offset = 0;
};

Placed place_view(LowerCtx& ctx, LayerSpec& L, std::size_t input) {
  const Graph& g = ctx.graph();
  std::string& x = L.inputs[input];
  const Dims& s = g.tensor(x).shape;
  if (const auto read = strided_read(g, x, ctx.composed())) {
    for (std::string t = x; ctx.composed().count(t);) {
      const Node& p = g.nodes[*g.producer(t)];
      if (std::find(L.covers.begin(), L.covers.end(), p.name) == L.covers.end()) L.covers.push_back(p.name);  // Q's and K's Split
      t = p.inputs[0];
    }
    x = read->root;
    return {read->stride, read->offset};
  }
  Placed p{U64s(s.size(), 1), 0};
  for (std::size_t d = s.size(); d-- > 1;) p.stride[d - 1] = p.stride[d] * std::uint64_t(s[d]);
  return p;
}

// K^T = Transpose(X, perm) with perm[2] = 3: X's strides for K's batch, head and key axes.
void key_view(const Dims& x, const Dims& perm, const Placed& at, AttentionGeom& a) {
  const U64s& st = at.stride;
  a.key = {true, std::uint64_t(x[std::size_t(perm[1])]), st[std::size_t(perm[0])], st[std::size_t(perm[1])],
           st[std::size_t(perm[3])], at.offset};
  a.sk = std::uint64_t(x[std::size_t(perm[3])]);
}

// [..., rows, n] packed: every head's rows follow each other.
HeadView packed(const Dims& s) {
  const std::uint64_t rows = std::uint64_t(s[s.size() - 2]), n = std::uint64_t(s.back());
  return {false, batch_product(s), 0, rows * n, n, 0};
}

// X [B, S, H, n] read (or written) as Transpose(X, perm 0,2,1,3) [B, H, S, n].
HeadView split_heads(const Dims& x, const Placed& at) {
  return {true, std::uint64_t(x[2]), at.stride[0], at.stride[2], at.stride[1], at.offset};
}

// An output view: X [B, S, H, n] packed (the attention writes it).
HeadView split_heads(const Dims& x) {
  const std::uint64_t h = std::uint64_t(x[2]), n = std::uint64_t(x[3]);
  return {true, h, std::uint64_t(x[1]) * h * n, n, h * n, 0};
}

// Q's geometry: heads, rows and d from Q [..., Sq, d] or, under kQueryView, X [B, Sq, H, d].
void query_geometry(LowerCtx& ctx, const Node& n, LayerSpec& L) {
  const Dims q = ctx.graph().tensor(L.inputs[0]).shape;
  AttentionGeom& a = L.attention;
  const bool view = n.attr_int(fused_attr::kQueryView, 0) == 1;
  a.query = view ? split_heads(q, place_view(ctx, L, 0)) : packed(q);
  a.heads = view ? std::uint64_t(q[0] * q[2]) : batch_product(q);
  a.sq = std::uint64_t(view ? q[1] : q[q.size() - 2]);
  a.d = std::uint64_t(q.back());
}

void lower_attention(LowerCtx& ctx, const Node& n) {
  const Graph& g = ctx.graph();
  const Dims kt = shape_of(g, n, n.inputs[1]);
  const Dims v = shape_of(g, n, n.inputs[2]);
  LayerSpec L = ctx.base(n, LayerKind::Attention);
  AttentionGeom& a = L.attention;
  L.inputs = {n.inputs[0], n.inputs[1], n.inputs[2]};
  query_geometry(ctx, n, L);
  a.sk = std::uint64_t(kt.back());
  a.dv = std::uint64_t(v.back());
  const std::vector<std::int64_t> perm = n.attr_ints(fused_attr::kKeyPerm);
  if (perm.size() == 4) key_view(kt, perm, place_view(ctx, L, 1), a);
  a.value = n.attr_int(fused_attr::kValueView, 0) == 1 ? split_heads(v, place_view(ctx, L, 2)) : packed(v);
  a.out = n.attr_int(fused_attr::kOutView, 0) == 1 ? split_heads(shape_of(g, n, n.outputs[0]))
                                                    : HeadView{false, a.heads, 0, a.sq * a.dv, a.dv, 0};
  a.group = std::uint64_t(std::max<std::int64_t>(n.attr_int(fused_attr::kKvGroup, 1), 1));
  a.causal_offset = n.attr_int(fused_attr::kCausalOffset, -1);
  // The elements Q, K and V hold (read once each): inputs that are parts of one projection
  // output would otherwise count that whole output, or once for two of its parts.
  L.in_elems = a.heads * a.sq * a.d + a.heads / a.group * a.sk * (a.d + a.dv);
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
