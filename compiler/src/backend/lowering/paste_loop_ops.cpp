// Mask R-CNN's paste-masks Loop under --dynamic-size (frontend/onnx/paste_loop.hpp: recognised
// by structure, its outer reads made inputs, its output sized [M, H, W]). The body's work
// depends on each box's size; it is costed at its bound, M pastes of a full canvas: per trip
// the mask and box are read once, the mask is blended bilinearly up to at most H x W (six
// vector passes a canvas element, as codegen/resize_linear.cpp computes a bilinear Resize) and
// the H x W canvas is written once (the zero padding around a smaller box adds no pass: the
// full-size paste has none). One Layout layer streams it: DDR bytes = M x (mask + box + canvas)
// x element bytes exactly (the whole of each outer read, which holds M trips' slices, plus the
// [M, H, W] output), 6 identity ACT passes a step stand in for the blend. Costed, not computed:
// a run with data refuses it (LayerSpec::bound_note). Without --dynamic-size, or in any other
// form, the Loop stays on the host with the reason it had.
#include "backend/lowering/lowering_table.hpp"
#include "frontend/onnx/paste_loop.hpp"

namespace npu::compiler::lowering {

namespace {

std::string check_loop(const Graph& g, const Node& n) {
  if (!paste_loop_bound_text(g, n).empty()) return "";
  return "op Loop has no NPU lowering";
}

void lower_loop(LowerCtx& ctx, const Node& n) {
  const Graph& g = ctx.graph();
  if (paste_loop_bound_text(g, n).empty()) ctx.fail(n, "not a bounded paste-masks Loop (check_loop accepted it)");
  LayerSpec L = ctx.base(n, LayerKind::Layout);
  for (std::size_t i = 3; i < n.inputs.size(); ++i) {
    L.inputs.push_back(n.inputs[i]);
    L.in_elems += elements(g, n.inputs[i]);
    ctx.touch(n.inputs[i]);
  }
  L.output = n.outputs[0];
  L.elems = elements(g, n.outputs[0]);
  L.channels = 1;
  L.vector_passes = kPasteBlendPasses;
  L.bound_note = paste_loop_bound_text(g, n);
  ctx.finish(L);
}

}  // namespace

void add_loop_ops(std::map<std::string, OpLowering>& t) { t["Loop"] = OpLowering{check_loop, lower_loop, nullptr}; }

}  // namespace npu::compiler::lowering
