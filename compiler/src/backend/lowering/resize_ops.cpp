// Resize family: ONNX Resize and Upsample of NCHW. Nearest by integer factors (YOLO's
// upsampling) is a Resize layer on the vector unit, computed by MOVE (upsample_pieces); nearest
// by a fraction is a layout layer computed by MOVE per residue (nearest_resize_pieces) when its
// index map repeats; every other mode (bilinear) or map is a streaming layout copy, costed only.
#include "backend/lowering/lowering_table.hpp"
#include "npu/compiler/ir/fused_attr.hpp"

namespace npu::compiler::lowering {

namespace {

std::string check_resize(const Graph& g, const Node& n) {
  for (std::size_t i = 1; i < n.inputs.size(); ++i)
    if (!n.inputs[i].empty() && !is_const(g, n.inputs[i])) return "Resize scales/sizes computed at run time";
  return rank4_batch1(g, n.inputs[0]);  // integer nearest: upsampling layer; else a layout copy
}

bool is_resize_nearest_integer(const Graph& g, const Node& n) {
  if (n.attr_string("mode", "nearest") != "nearest") return false;
  const auto& in = g.tensor(n.inputs[0]).shape;
  const auto& out = g.tensor(n.outputs[0]).shape;
  return out.size() == 4 && in.size() == 4 && out[1] == in[1] && out[2] % in[2] == 0 && out[3] % in[3] == 0;
}

void lower_resize(LowerCtx& ctx, const Node& n) {
  const Graph& g = ctx.graph();
  if (!is_resize_nearest_integer(g, n)) {
    // Bilinear / non-integer: a streaming copy that reads the input once and writes the
    // output once (the interpolation's 4 taps per element are not costed separately).
    LayerSpec L = ctx.base(n, LayerKind::Layout);
    L.inputs = {n.inputs[0]};
    L.in_elems = std::uint64_t(g.tensor(n.inputs[0]).elements());
    L.elems = std::uint64_t(g.tensor(n.outputs[0]).elements());
    L.channels = int(g.tensor(n.outputs[0]).shape.at(1));
    L.layout = nearest_resize_pieces(g, n);  // a fractional nearest map that repeats: MOVE pieces
    const bool fp32 = ctx.elem_bytes() == 4 && linear_resize_taps(g, n, L.taps_h, L.taps_w);
    const bool int8 = ctx.elem_bytes() == 1 && linear_resize_taps_int8(g, n, L.taps_h, L.taps_w);
    if (fp32 || int8) {  // bilinear, computed (int8: its weights are the layer's int8 table)
      const auto& in = shape_of(g, n, n.inputs[0]);
      const auto& o = shape_of(g, n, n.outputs[0]);
      L.geom.c_in = L.geom.c_out = int(in[0] * in[1]);
      L.geom.h_in = int(in[2]), L.geom.w_in = int(in[3]), L.geom.h_out = int(o[2]), L.geom.w_out = int(o[3]);
      ctx.touch(n.inputs[0]);
    }
    if (fp32) {
      L.linear_weights = n.name + ".linear_weights";
      ctx.touch_param(L.linear_weights, (L.taps_h.w.size() + L.taps_w.w.size()) * 4);
    }
    return ctx.finish(L);
  }
  LayerSpec L = ctx.base(n, LayerKind::Resize);
  const auto& in = shape_of(g, n, n.inputs[0]);
  const auto& o = shape_of(g, n, n.outputs[0]);
  L.inputs = {n.inputs[0]};
  L.channels = int(in[0] * in[1]);  // a batch's planes one after another
  L.geom.c_in = L.geom.c_out = L.channels;
  L.geom.h_in = int(in[2]);
  L.geom.w_in = int(in[3]);
  L.geom.h_out = int(o[2]);
  L.geom.w_out = int(o[3]);
  L.resize_h = int(o[2] / in[2]);
  L.resize_w = int(o[3] / in[3]);
  L.elems = std::uint64_t(g.tensor(n.outputs[0]).elements());
  L.layout = upsample_pieces(g, n);
  ctx.finish(L);
}

}  // namespace

void add_resize_ops(std::map<std::string, OpLowering>& t) {
  for (const char* op : {"Resize", "Upsample"}) t[op] = OpLowering{check_resize, lower_resize, nullptr};
}

}  // namespace npu::compiler::lowering
