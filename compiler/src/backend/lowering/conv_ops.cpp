// Conv family on the MAC array: a 2-D ONNX Conv on NCHW (groups, dilation, explicit or
// auto_pad pads), with what fusion marked on it: a bias, an epilogue activation
// (fuse-activation), a residual Add (fuse-residual) and an input scale (fuse-se-gate); and a
// 3-D ONNX Conv on NCDHW (video models), as per-depth-slice 2-D convolutions accumulated over
// the kernel depth (LayerSpec::depth, codegen/conv3d.cpp).
#include "backend/lowering/lowering_table.hpp"
#include "npu/compiler/ir/fused_attr.hpp"

namespace npu::compiler::lowering {

namespace {

// A 5-D Conv (NCDHW, batch 1, group 1, one dilation over H and W): "" when it can run.
std::string check_conv3d(const Graph& g, const Node& n) {
  const auto& s = g.tensor(n.inputs[0]).shape;
  if (s[0] != 1)
    return "3-D convolution with batch " + std::to_string(s[0]) +
           ": the NPU lowering runs a Conv over NCDHW at batch 1; pass --input-shape with N = 1";
  if (n.attr_int("group", 1) != 1)
    return "grouped 3-D convolution (group " + std::to_string(n.attr_int("group", 1)) +
           "): the NPU lowering of a Conv over NCDHW accumulates depth taps over all input channels (group 1)";
  const auto d = n.attr_ints("dilations", {1, 1, 1});
  if (d.size() == 3 && d[1] != d[2]) return "different dilations along H and W";
  if (n.inputs.size() >= 3 && !n.inputs[2].empty() && !is_const(g, n.inputs[2])) return "Conv bias is not constant";
  return "";
}

std::string check_conv(const Graph& g, const Node& n) {
  if (n.inputs.size() < 2 || !is_const(g, n.inputs[1])) return "Conv weights are not constant";
  if (g.has_tensor(n.inputs[0]) && g.tensor(n.inputs[0]).shape.size() == 5) return check_conv3d(g, n);
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

// A 5-D Conv: geom is one depth slice's 2-D convolution (H, W axes), depth the D axis.
void lower_conv3d(LowerCtx& ctx, const Node& n) {
  const Graph& g = ctx.graph();
  LayerSpec L = ctx.base(n, LayerKind::Conv);
  L.depth_first = false;  // the depth-first scheduler stacks 2-D layers only
  const auto& x = shape_of(g, n, n.inputs[0]);
  const auto& w = shape_of(g, n, n.inputs[1]);
  const auto& y = shape_of(g, n, n.outputs[0]);
  ConvGeom& c = L.geom;
  DepthGeom& d = L.depth;
  c.c_in = int(x[1]), d.d_in = int(x[2]), c.h_in = int(x[3]), c.w_in = int(x[4]);
  c.c_out = int(w[0]), d.d_out = int(y[2]), c.h_out = int(y[3]), c.w_out = int(y[4]);
  const auto ks = n.attr_ints("kernel_shape", {w[2], w[3], w[4]});
  const auto st = n.attr_ints("strides", {1, 1, 1});
  const auto dil = n.attr_ints("dilations", {1, 1, 1});
  const auto pads = n.attr_ints("pads", {0, 0, 0, 0, 0, 0});
  if (ks.size() != 3 || st.size() != 3 || dil.size() != 3 || pads.size() != 6)
    ctx.fail(n, "kernel_shape, strides and dilations need 3 values and pads 6 for a Conv over NCDHW");
  d.kd = int(ks[0]), c.kh = int(ks[1]), c.kw = int(ks[2]);
  d.stride = int(st[0]), c.stride_h = int(st[1]), c.stride_w = int(st[2]);
  d.dilation = int(dil[0]), c.dilation = int(dil[1]);
  const std::string ap = n.attr_string("auto_pad", "NOTSET");
  int pad_back = 0;
  axis_pads(ap, d.d_in, d.d_out, d.kd, d.stride, d.dilation, int(pads[0]), int(pads[3]), d.pad_front, pad_back);
  axis_pads(ap, c.h_in, c.h_out, c.kh, c.stride_h, c.dilation, int(pads[1]), int(pads[4]), c.pad_top, c.pad_bottom);
  axis_pads(ap, c.w_in, c.w_out, c.kw, c.stride_w, c.dilation, int(pads[2]), int(pads[5]), c.pad_left, c.pad_right);
  auto expect = [](int in, int p0, int p1, int k, int s, int dl) { return (in + p0 + p1 - dl * (k - 1) - 1) / s + 1; };
  const int de = expect(d.d_in, d.pad_front, pad_back, d.kd, d.stride, d.dilation);
  const int he = expect(c.h_in, c.pad_top, c.pad_bottom, c.kh, c.stride_h, c.dilation);
  const int we = expect(c.w_in, c.pad_left, c.pad_right, c.kw, c.stride_w, c.dilation);
  if (de != d.d_out || he != c.h_out || we != c.w_out || int(w[1]) != c.c_in || w.size() != 5)
    ctx.fail(n, "output shape " + shape_string(y) + " disagrees with the Conv attributes, input " + shape_string(x) +
                    " and weights " + shape_string(w) + " (expected [1, " + std::to_string(c.c_out) + ", " +
                    std::to_string(de) + ", " + std::to_string(he) + ", " + std::to_string(we) + "])");
  for (int od = 0; od < d.d_out; ++od) {
    bool reads = false;
    for (int k = 0; k < d.kd; ++k) reads = reads || d.input_slice(od, k) >= 0;
    if (!reads)
      ctx.fail(n, "output depth slice " + std::to_string(od) + " lies wholly in the depth padding; reduce the pads");
  }
  L.inputs = {n.inputs[0]};
  L.weight = n.inputs[1];
  if (n.inputs.size() >= 3 && !n.inputs[2].empty()) L.bias = n.inputs[2];
  if (n.attr_int(fused_attr::kResidual, 0) != 0) L.residual = n.inputs.at(3);
  if (!n.attr_string(fused_attr::kInScale, "").empty()) ctx.fail(n, "an input scale (fuse-se-gate) on a Conv over NCDHW");
  ctx.finish_mac(n, L);
}

void lower_conv(LowerCtx& ctx, const Node& n) {
  const Graph& g = ctx.graph();
  if (shape_of(g, n, n.inputs[0]).size() == 5) return lower_conv3d(ctx, n);
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
