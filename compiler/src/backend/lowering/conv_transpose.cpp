// ConvTranspose (ONNX, 2-D) on an NPU without a native transposed-convolution mode, the way
// such NPUs run it (e.g. Dumoulin & Visin, "A guide to convolution arithmetic", 2016, sec. 4):
// a layout pass writes the input with stride-1 zeros inserted between its pixels (computed by
// MOVE with `zero`, codegen/zero_insert.cpp)
// ((H-1)*s+1 rows), then an ordinary stride-1 Conv with padding d*(k-1)-pad (end: + output
// padding) over it. The array multiplies the inserted zeros too: MACs are the executed
// ones, about s_h*s_w times the transposed convolution's useful MACs; the zero-inserted
// tensor is real DDR traffic. Weights: the same bytes as the ONNX [Cin, Cout/g, kh, kw].
#include "backend/lowering/lowering_table.hpp"
#include "npu/compiler/transforms/pass.hpp"

namespace npu::compiler::lowering {

namespace {

using Shape = std::vector<std::int64_t>;

struct Geo {
  std::int64_t s[2], d, k[2], pb[2], pe[2], up[2];
};

std::string geometry(const Graph& g, const Node& n, Geo& o) {
  if (auto r = shapes_known(g, n); !r.empty()) return r;
  const Shape& x = g.tensor(n.inputs[0]).shape;
  if (x.size() != 4) return "ConvTranspose on a " + std::to_string(x.size()) + "-D tensor (2-D only)";
  if (n.inputs.size() < 2 || !is_const(g, n.inputs[1])) return "ConvTranspose weights are not constant";
  if (n.inputs.size() > 2 && !n.inputs[2].empty() && !is_const(g, n.inputs[2])) return "ConvTranspose bias is not constant";
  if (n.attr_string("auto_pad", "NOTSET") != "NOTSET") return "ConvTranspose with auto_pad";
  if (n.has_attr("output_shape")) return "ConvTranspose with an explicit output_shape";
  const Shape& w = g.tensor(n.inputs[1]).shape;
  const auto st = n.attr_ints("strides", {1, 1});
  const auto dl = n.attr_ints("dilations", {1, 1});
  const auto pads = n.attr_ints("pads", {0, 0, 0, 0});
  const auto op = n.attr_ints("output_padding", {0, 0});
  if (st.size() != 2 || dl.size() != 2 || pads.size() != 4 || op.size() != 2 || w.size() != 4)
    return "ConvTranspose attributes of the wrong length";
  if (dl[0] != dl[1]) return "ConvTranspose with different dilations per axis";
  o.d = dl[0];
  for (int a = 0; a < 2; ++a) {
    o.s[a] = st[std::size_t(a)];
    o.k[a] = w[std::size_t(2 + a)];
    o.pb[a] = o.d * (o.k[a] - 1) - pads[std::size_t(a)];
    o.pe[a] = o.d * (o.k[a] - 1) - pads[std::size_t(2 + a)] + op[std::size_t(a)];
    o.up[a] = (x[std::size_t(2 + a)] - 1) * o.s[a] + 1;
    if (o.pb[a] < 0 || o.pe[a] < 0) return "ConvTranspose whose pads exceed dilation*(kernel-1) (a crop)";
  }
  return "";
}

std::string check(const Graph& g, const Node& n) {
  Geo o{};
  return geometry(g, n, o);
}

void lower(LowerCtx& ctx, const Node& n) {
  const Graph& g = ctx.graph();
  Geo o{};
  if (auto r = geometry(g, n, o); !r.empty()) ctx.fail(n, r);
  const Shape& x = g.tensor(n.inputs[0]).shape;
  const Shape& y = g.tensor(n.outputs[0]).shape;
  const std::uint64_t e = std::uint64_t(ctx.elem_bytes());
  const std::uint64_t up_elems = std::uint64_t(x[0] * x[1] * o.up[0] * o.up[1]);
  const std::string up = ctx.temp_tensor(n.name + ".zero_inserted", up_elems * e);
  // 1. Zero insertion: reads the input once, writes the dilated tensor once (zeros included).
  LayerSpec Z = ctx.base(n, LayerKind::Layout);
  Z.name += ":zero_insert";
  Z.inputs = {n.inputs[0]};
  Z.output = up;
  Z.in_elems = std::uint64_t(g.tensor(n.inputs[0]).elements());
  Z.elems = up_elems;
  Z.channels = int(x[1]);
  Z.zero_insert = true;
  Z.geom.c_in = Z.geom.c_out = int(x[0] * x[1]);  // a batch's planes one after another
  Z.geom.h_in = int(x[2]);
  Z.geom.w_in = int(x[3]);
  Z.geom.h_out = int(o.up[0]);
  Z.geom.w_out = int(o.up[1]);
  Z.geom.stride_h = int(o.s[0]);
  Z.geom.stride_w = int(o.s[1]);
  ctx.finish(Z);
  // 2. Stride-1 convolution over it.
  LayerSpec L = ctx.base(n, LayerKind::Conv);
  ConvGeom& c = L.geom;
  c.c_in = int(x[1]);
  c.h_in = int(o.up[0]);
  c.w_in = int(o.up[1]);
  c.c_out = int(y[1]);
  c.h_out = int(y[2]);
  c.w_out = int(y[3]);
  c.kh = int(o.k[0]);
  c.kw = int(o.k[1]);
  c.dilation = int(o.d);
  c.group = int(n.attr_int("group", 1));
  c.pad_top = int(o.pb[0]);
  c.pad_bottom = int(o.pe[0]);
  c.pad_left = int(o.pb[1]);
  c.pad_right = int(o.pe[1]);
  if ((c.h_in + c.pad_top + c.pad_bottom - c.dilation * (c.kh - 1) - 1) + 1 != c.h_out ||
      (c.w_in + c.pad_left + c.pad_right - c.dilation * (c.kw - 1) - 1) + 1 != c.w_out)
    ctx.fail(n, "output shape " + shape_string(y) + " disagrees with the ConvTranspose attributes");
  L.batch = int(x[0]);
  L.inputs = {up};
  L.weight = n.inputs[1];
  if (n.inputs.size() > 2 && !n.inputs[2].empty()) L.bias = n.inputs[2];
  ctx.finish_mac(n, L);
}

}  // namespace

void add_conv_transpose(std::map<std::string, OpLowering>& t) { t["ConvTranspose"] = OpLowering{check, lower, nullptr}; }

}  // namespace npu::compiler::lowering
