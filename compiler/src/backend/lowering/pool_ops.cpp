// Pooling family on the vector unit: MaxPool, AveragePool (explicit or auto_pad pads,
// ceil_mode) and GlobalAveragePool/GlobalMaxPool over NCHW; a batch's planes pool one after
// another. Over NCDHW (MaxPool3d, AvgPool3d): the window is separable (a max of maxima; a mean
// of means, the count being the product of the per-axis counts with or without the pads), so
// it runs as a 2-D pool over the N C D planes of H x W, then a pool of kernel kD x 1 over the
// N C planes of D x (H_out W_out) (each layer only when its axes pool); Global pools over
// NCDHW are one pool over the N C planes of D x (H W) elements.
#include <algorithm>

#include "backend/lowering/lowering_table.hpp"
#include "npu/compiler/ir/fused_attr.hpp"
#include "npu/compiler/ir/pool_window.hpp"

namespace npu::compiler::lowering {

namespace {

std::string check_pool(const Graph& g, const Node& n) {
  if (n.outputs.size() > 1 && !n.outputs[1].empty()) return "MaxPool with an Indices output";
  if (g.has_tensor(n.inputs[0]) && g.tensor(n.inputs[0]).shape.size() == 5 && g.tensor(n.inputs[0]).shape[0] >= 1) {
    if (n.op_type == "GlobalAveragePool" || n.op_type == "GlobalMaxPool") return "";
    const auto dil = n.attr_ints("dilations", {1, 1, 1});
    for (auto d : dil)
      if (d != 1) return "a dilated 3-D pooling window";
    return n.attr_ints("kernel_shape").size() == 3 ? "" : "kernel_shape must have 3 values for a 5-D input";
  }
  return rank4_batch1(g, n.inputs[0]);
}

// A windowed pool's kernel, strides and pads; fail()s when they disagree with the output shape.
// Returns true when a window reaches past the pads (ceil_mode): the bottom/right pad had to grow.
bool pool_window(LowerCtx& ctx, const Node& n, const std::vector<std::int64_t>& y, ConvGeom& c) {
  const auto ks = n.attr_ints("kernel_shape");
  if (ks.size() != 2) ctx.fail(n, "kernel_shape must have 2 values");
  c.kh = int(ks[0]);
  c.kw = int(ks[1]);
  const auto st = n.attr_ints("strides", {1, 1});
  c.stride_h = int(st.at(0));
  c.stride_w = int(st.at(1));
  const auto pads = n.attr_ints("pads", {0, 0, 0, 0});
  const std::string ap = n.attr_string("auto_pad", "NOTSET");
  axis_pads(ap, c.h_in, c.h_out, c.kh, c.stride_h, 1, int(pads.at(0)), int(pads.at(2)), c.pad_top, c.pad_bottom);
  axis_pads(ap, c.w_in, c.w_out, c.kw, c.stride_w, 1, int(pads.at(1)), int(pads.at(3)), c.pad_left, c.pad_right);
  // ceil_mode=1 (or any rounding up): extend the bottom/right padding so that the ISA's
  // floor formula gives the graph's output size.
  const int declared_bottom = c.pad_bottom, declared_right = c.pad_right;
  c.pad_bottom = std::max(c.pad_bottom, (c.h_out - 1) * c.stride_h + c.kh - c.h_in - c.pad_top);
  c.pad_right = std::max(c.pad_right, (c.w_out - 1) * c.stride_w + c.kw - c.w_in - c.pad_left);
  if ((c.h_in + c.pad_top + c.pad_bottom - c.kh) / c.stride_h + 1 != c.h_out ||
      (c.w_in + c.pad_left + c.pad_right - c.kw) / c.stride_w + 1 != c.w_out)
    ctx.fail(n, "output shape " + shape_string(y) + " disagrees with the pooling attributes");
  return c.pad_bottom > declared_bottom || c.pad_right > declared_right;
}

// An AveragePool's POOL op. count_include_pad=1 divides by the whole window (ONNX; PyTorch's
// AvgPool2d default): POOL avg_pad where that differs from avg (a window reaches the padding:
// avg_pool_counts_padding) and every window lies inside the padded input. A window past the
// pads (ceil_mode) divides by its taps inside the padded input, which neither POOL op computes:
// it stays avg, and functional_problems() says so.
isa::PoolOp avg_pool_op(const Graph& g, const Node& n, bool overhang) {
  const bool include_pad = n.attr_int("count_include_pad", 0) != 0 && avg_pool_counts_padding(g, n);
  return include_pad && !overhang ? isa::PoolOp::AvgPad : isa::PoolOp::Avg;
}

// One 2-D pool layer over `planes` planes of h_in x w_in -> h_out x w_out, window `win`
// (kh, kw, strides, pads set), from `in` to `out`, named `name`.
void pool_layer(LowerCtx& ctx, const Node& n, const std::string& name, const std::string& in, const std::string& out,
                int planes, const ConvGeom& win) {
  LayerSpec L = ctx.base(n, LayerKind::Pool);
  L.name = name;
  L.geom = win;
  L.geom.c_in = L.geom.c_out = L.geom.group = planes;
  L.inputs = {in};
  L.output = out;
  L.channels = planes;
  L.pool = n.op_type == "MaxPool" ? isa::PoolOp::Max : isa::PoolOp::Avg;
  ctx.finish(L);
}

// MaxPool / AveragePool over NCDHW: the spatial pool, then the depth pool (separable).
void lower_pool3d(LowerCtx& ctx, const Node& n) {
  const Graph& g = ctx.graph();
  const auto& x = shape_of(g, n, n.inputs[0]);
  const auto& y = shape_of(g, n, n.outputs[0]);
  const auto ks = n.attr_ints("kernel_shape");
  const auto st = n.attr_ints("strides", {1, 1, 1});
  const auto pads = n.attr_ints("pads", {0, 0, 0, 0, 0, 0});
  if (ks.size() != 3 || st.size() != 3 || pads.size() != 6 || n.attr_string("auto_pad", "NOTSET") != "NOTSET")
    ctx.fail(n, "a 3-D pool needs 3 kernel sizes and strides, 6 pads and no auto_pad");
  const int planes = int(x[0] * x[1]);
  ConvGeom hw;  // spatial: N C D planes of H x W
  hw.h_in = int(x[3]), hw.w_in = int(x[4]), hw.h_out = int(y[3]), hw.w_out = int(y[4]);
  hw.kh = int(ks[1]), hw.kw = int(ks[2]), hw.stride_h = int(st[1]), hw.stride_w = int(st[2]);
  hw.pad_top = int(pads[1]), hw.pad_bottom = int(pads[4]), hw.pad_left = int(pads[2]), hw.pad_right = int(pads[5]);
  hw.pad_bottom = std::max(hw.pad_bottom, (hw.h_out - 1) * hw.stride_h + hw.kh - hw.h_in - hw.pad_top);
  hw.pad_right = std::max(hw.pad_right, (hw.w_out - 1) * hw.stride_w + hw.kw - hw.w_in - hw.pad_left);
  ConvGeom dp;  // depth: N C planes of D x (H_out W_out)
  dp.h_in = int(x[2]), dp.h_out = int(y[2]), dp.w_in = dp.w_out = hw.h_out * hw.w_out;
  dp.kh = int(ks[0]), dp.stride_h = int(st[0]), dp.pad_top = int(pads[0]), dp.pad_bottom = int(pads[3]);
  dp.pad_bottom = std::max(dp.pad_bottom, (dp.h_out - 1) * dp.stride_h + dp.kh - dp.h_in - dp.pad_top);
  if ((dp.h_in + dp.pad_top + dp.pad_bottom - dp.kh) / dp.stride_h + 1 != dp.h_out ||
      (hw.h_in + hw.pad_top + hw.pad_bottom - hw.kh) / hw.stride_h + 1 != hw.h_out ||
      (hw.w_in + hw.pad_left + hw.pad_right - hw.kw) / hw.stride_w + 1 != hw.w_out)
    ctx.fail(n, "output shape " + shape_string(y) + " disagrees with the pooling attributes");
  const bool spatial = hw.kh != 1 || hw.kw != 1 || hw.stride_h != 1 || hw.stride_w != 1 || hw.pad_top || hw.pad_bottom ||
                       hw.pad_left || hw.pad_right;
  const bool depth = dp.kh != 1 || dp.stride_h != 1 || dp.pad_top || dp.pad_bottom;
  std::string mid = n.inputs[0];
  if (spatial) {
    mid = depth ? ctx.temp_tensor(n.name + ".hw", std::uint64_t(planes) * x[2] * hw.h_out * hw.w_out * ctx.elem_bytes())
                : n.outputs[0];
    pool_layer(ctx, n, n.name + (depth ? ":hw" : ""), n.inputs[0], mid, planes * int(x[2]), hw);
  }
  if (depth || !spatial) pool_layer(ctx, n, n.name + (spatial ? ":d" : ""), mid, n.outputs[0], planes, dp);
}

void lower_pool(LowerCtx& ctx, const Node& n) {
  const Graph& g = ctx.graph();
  if (shape_of(g, n, n.inputs[0]).size() == 5 && n.op_type != "GlobalAveragePool" && n.op_type != "GlobalMaxPool")
    return lower_pool3d(ctx, n);
  LayerSpec L = ctx.base(n, LayerKind::Pool);
  const auto& x = shape_of(g, n, n.inputs[0]);
  const auto& y = shape_of(g, n, n.outputs[0]);
  ConvGeom& c = L.geom;
  c.c_in = c.c_out = c.group = int(x[0] * x[1]);  // a batch's planes pool one after another
  c.h_in = int(x[2]);
  c.w_in = int(x[3] * (x.size() == 5 ? x[4] : 1));  // NCDHW: planes of D x (H W)
  c.h_out = int(y[2]);
  c.w_out = int(y[3] * (y.size() == 5 ? y[4] : 1));
  L.inputs = {n.inputs[0]};
  L.channels = c.c_in;
  if (n.op_type == "GlobalAveragePool" || n.op_type == "GlobalMaxPool") {
    L.pool = n.op_type == "GlobalAveragePool" ? isa::PoolOp::GlobalAvg : isa::PoolOp::Max;
    c.kh = c.h_in;
    c.kw = c.w_in;
    return ctx.finish(L);
  }
  const bool overhang = pool_window(ctx, n, y, c);
  L.pool = n.op_type == "MaxPool" ? isa::PoolOp::Max : avg_pool_op(g, n, overhang);
  ctx.finish(L);
}

}  // namespace

void add_pool_ops(std::map<std::string, OpLowering>& t) {
  for (const char* op : {"MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool"})
    t[op] = OpLowering{check_pool, lower_pool, nullptr};
}

}  // namespace npu::compiler::lowering
