// Conv family on the MAC array: a 2-D ONNX Conv on NCHW (groups, dilation, explicit or
// auto_pad pads), with what fusion marked on it: a bias, an epilogue activation
// (fuse-activation), a residual Add (fuse-residual) and an input scale (fuse-se-gate).
#include "backend/lowering/lowering_table.hpp"
#include "npu/compiler/ir/fused_attr.hpp"

namespace npu::compiler::lowering {

namespace {

std::string check_conv(const Graph& g, const Node& n) {
  if (n.inputs.size() < 2 || !is_const(g, n.inputs[1])) return "Conv weights are not constant";
  if (g.has_tensor(n.inputs[0]) && g.tensor(n.inputs[0]).shape.size() == 3)
    return "1-D convolution (input " + shape_string(g.tensor(n.inputs[0]).shape) +
           "): the NPU lowering supports 2-D convolutions on 4-D NCHW tensors only; re-export the "
           "model with it as a 2-D Conv with a 1xK kernel on an N x C x 1 x L input";
  if (auto r = rank4_batch1(g, n.inputs[0]); !r.empty()) return r;
  const auto d = n.attr_ints("dilations", {1, 1});
  if (d.size() == 2 && d[0] != d[1]) return "different dilations per axis";
  if (n.inputs.size() >= 3 && !n.inputs[2].empty() && !is_const(g, n.inputs[2])) return "Conv bias is not constant";
  return "";
}

void lower_conv(LowerCtx& ctx, const Node& n) {
  const Graph& g = ctx.graph();
  LayerSpec L = ctx.base(n, LayerKind::Conv);
  const auto& x = shape_of(g, n, n.inputs[0]);
  const auto& w = shape_of(g, n, n.inputs[1]);
  const auto& y = shape_of(g, n, n.outputs[0]);
  ConvGeom& c = L.geom;
  L.batch = int(x[0]);
  c.c_in = int(x[1]);
  c.h_in = int(x[2]);
  c.w_in = int(x[3]);
  c.c_out = int(w[0]);
  c.h_out = int(y[2]);
  c.w_out = int(y[3]);
  const auto ks = n.attr_ints("kernel_shape", {w[2], w[3]});
  c.kh = int(ks.at(0));
  c.kw = int(ks.at(1));
  const auto st = n.attr_ints("strides", {1, 1});
  c.stride_h = int(st.at(0));
  c.stride_w = int(st.at(1));
  c.dilation = int(n.attr_ints("dilations", {1, 1}).at(0));
  c.group = int(n.attr_int("group", 1));
  const auto pads = n.attr_ints("pads", {0, 0, 0, 0});
  const std::string ap = n.attr_string("auto_pad", "NOTSET");
  axis_pads(ap, c.h_in, c.h_out, c.kh, c.stride_h, c.dilation, int(pads.at(0)), int(pads.at(2)), c.pad_top,
            c.pad_bottom);
  axis_pads(ap, c.w_in, c.w_out, c.kw, c.stride_w, c.dilation, int(pads.at(1)), int(pads.at(3)), c.pad_left,
            c.pad_right);
  const int h_expect = (c.h_in + c.pad_top + c.pad_bottom - c.dilation * (c.kh - 1) - 1) / c.stride_h + 1;
  const int w_expect = (c.w_in + c.pad_left + c.pad_right - c.dilation * (c.kw - 1) - 1) / c.stride_w + 1;
  if (h_expect < 1 || w_expect < 1)
    ctx.fail(n, "the " + std::to_string(c.kh) + "x" + std::to_string(c.kw) + " window (dilation " +
                    std::to_string(c.dilation) + ") does not fit the padded input " + shape_string(x) +
                    ": the output would be empty; pad the input or use a smaller kernel");
  if (h_expect != c.h_out || w_expect != c.w_out || c.c_in % c.group != 0 || c.c_out % c.group != 0 ||
      int(w[1]) != c.c_in / c.group)
    ctx.fail(n, "output shape " + shape_string(y) + " disagrees with the Conv attributes and input " +
                    shape_string(x) + " (expected [1, " + std::to_string(c.c_out) + ", " +
                    std::to_string(h_expect) + ", " + std::to_string(w_expect) + "])");
  L.inputs = {n.inputs[0]};
  L.weight = n.inputs[1];
  if (n.inputs.size() >= 3 && !n.inputs[2].empty()) L.bias = n.inputs[2];
  if (n.attr_int(fused_attr::kResidual, 0) != 0) L.residual = n.inputs.at(3);
  L.in_scale = n.attr_string(fused_attr::kInScale, "");
  ctx.finish_mac(n, L);
}

}  // namespace

void add_conv_ops(std::map<std::string, OpLowering>& t) { t["Conv"] = OpLowering{check_conv, lower_conv, nullptr}; }

}  // namespace npu::compiler::lowering
