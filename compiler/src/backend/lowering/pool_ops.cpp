// Pooling family on the vector unit: MaxPool, AveragePool (explicit or auto_pad pads,
// ceil_mode) and GlobalAveragePool/GlobalMaxPool over NCHW; a batch's planes pool one after
// another.
#include <algorithm>

#include "backend/lowering/lowering_table.hpp"
#include "npu/compiler/ir/fused_attr.hpp"

namespace npu::compiler::lowering {

namespace {

std::string check_pool(const Graph& g, const Node& n) {
  if (n.outputs.size() > 1 && !n.outputs[1].empty()) return "MaxPool with an Indices output";
  return rank4_batch1(g, n.inputs[0]);
}

// A windowed pool's kernel, strides and pads; fail()s when they disagree with the output shape.
void pool_window(LowerCtx& ctx, const Node& n, const std::vector<std::int64_t>& y, ConvGeom& c) {
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
  c.pad_bottom = std::max(c.pad_bottom, (c.h_out - 1) * c.stride_h + c.kh - c.h_in - c.pad_top);
  c.pad_right = std::max(c.pad_right, (c.w_out - 1) * c.stride_w + c.kw - c.w_in - c.pad_left);
  if ((c.h_in + c.pad_top + c.pad_bottom - c.kh) / c.stride_h + 1 != c.h_out ||
      (c.w_in + c.pad_left + c.pad_right - c.kw) / c.stride_w + 1 != c.w_out)
    ctx.fail(n, "output shape " + shape_string(y) + " disagrees with the pooling attributes");
}

void lower_pool(LowerCtx& ctx, const Node& n) {
  const Graph& g = ctx.graph();
  LayerSpec L = ctx.base(n, LayerKind::Pool);
  const auto& x = shape_of(g, n, n.inputs[0]);
  const auto& y = shape_of(g, n, n.outputs[0]);
  ConvGeom& c = L.geom;
  c.c_in = c.c_out = c.group = int(x[0] * x[1]);  // a batch's planes pool one after another
  c.h_in = int(x[2]);
  c.w_in = int(x[3]);
  c.h_out = int(y[2]);
  c.w_out = int(y[3]);
  L.inputs = {n.inputs[0]};
  L.channels = c.c_in;
  if (n.op_type == "GlobalAveragePool" || n.op_type == "GlobalMaxPool") {
    L.pool = n.op_type == "GlobalAveragePool" ? isa::PoolOp::GlobalAvg : isa::PoolOp::Max;
    c.kh = c.h_in;
    c.kw = c.w_in;
    return ctx.finish(L);
  }
  L.pool = n.op_type == "MaxPool" ? isa::PoolOp::Max : isa::PoolOp::Avg;
  pool_window(ctx, n, y, c);
  ctx.finish(L);
}

}  // namespace

void add_pool_ops(std::map<std::string, OpLowering>& t) {
  for (const char* op : {"MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool"})
    t[op] = OpLowering{check_pool, lower_pool, nullptr};
}

}  // namespace npu::compiler::lowering
