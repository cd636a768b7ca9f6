// torchvision's paste-masks Loop (paste_loop.hpp). Mask R-CNN's postprocess exports
// `_onnx_paste_masks_in_image_loop` as Loop(M, cond, zeros [0, H, W]) whose body, per detection
// i, gathers mask i and box i from the enclosing graph, Resizes the mask (bilinear) to the box's
// size (data-dependent), pads it with ConstantOfShape zeros to the H x W canvas (Concat along
// each axis, Slice to H x W) and appends the canvas to the carried result (Concat, axis 0).
#include <algorithm>

#include "frontend/onnx/onnx_subgraph.hpp"
#include "frontend/onnx/paste_loop.hpp"

namespace npu::compiler {

namespace {

const onnx::GraphProto* body_of(const onnx::NodeProto& np) {
  for (const auto& a : np.attribute())
    if (a.name() == "body" && a.has_g()) return &a.g();
  return nullptr;
}

std::string attr_s(const onnx::NodeProto& n, const char* key) {
  for (const auto& a : n.attribute())
    if (a.name() == key) return a.s();
  return "";
}

std::int64_t attr_i(const onnx::NodeProto& n, const char* key, std::int64_t fallback) {
  for (const auto& a : n.attribute())
    if (a.name() == key) return a.i();
  return fallback;
}

// A ConstantOfShape whose value is zero (its default when the attribute is absent).
bool zero_fill(const onnx::NodeProto& n) {
  if (n.op_type() != "ConstantOfShape") return false;
  for (const auto& a : n.attribute()) {
    if (a.name() != "value") continue;
    const onnx::TensorProto& t = a.t();
    const std::string& raw = t.raw_data();
    return std::all_of(raw.begin(), raw.end(), [](char c) { return c == 0; }) &&
           std::all_of(t.float_data().begin(), t.float_data().end(), [](float v) { return v == 0.0f; }) &&
           std::all_of(t.int64_data().begin(), t.int64_data().end(), [](std::int64_t v) { return v == 0; }) &&
           std::all_of(t.int32_data().begin(), t.int32_data().end(), [](std::int32_t v) { return v == 0; });
  }
  return true;
}

// The body: a bilinear Resize, zeros read by a Concat, and the carried output a Concat along
// axis 0 whose first input is the carried input (the accumulator grows by one canvas a trip).
bool paste_body(const onnx::GraphProto& b) {
  if (b.input_size() != 3 || b.output_size() != 2) return false;
  bool resize = false, carried = false;
  std::vector<std::string> zeros;
  for (const auto& n : b.node()) {
    if (n.op_type() == "Resize" && attr_s(n, "mode") == "linear") resize = true;
    if (zero_fill(n) && n.output_size() == 1) zeros.push_back(n.output(0));
    if (n.op_type() == "Concat" && n.output_size() == 1 && n.output(0) == b.output(1).name() &&
        attr_i(n, "axis", -1) == 0 && n.input_size() == 2 && n.input(0) == b.input(2).name())
      carried = true;
  }
  bool padded = false;
  for (const auto& n : b.node())
    if (n.op_type() == "Concat")
      for (const auto& in : n.input()) padded = padded || std::find(zeros.begin(), zeros.end(), in) != zeros.end();
  return resize && carried && padded;
}

const Tensor* constant(const Graph& g, const std::string& t) {
  return !t.empty() && g.has_tensor(t) && g.tensor(t).is_constant ? &g.tensor(t) : nullptr;
}

}  // namespace

std::optional<PasteLoop> paste_loop(const Graph& g, const Node& n) {
  if (n.op_type != "Loop" || n.inputs.size() < 3 || n.outputs.size() != 1 || n.onnx_proto.empty()) return std::nullopt;
  onnx::NodeProto np;
  if (!np.ParseFromString(n.onnx_proto) || np.input_size() != 3) return std::nullopt;
  const onnx::GraphProto* body = body_of(np);
  const Tensor* m = constant(g, n.inputs[0]);
  const Tensor* v0 = constant(g, n.inputs[2]);
  if (!body || !paste_body(*body) || !m || m->int_data.size() != 1 || m->int_data[0] < 1 || !v0 ||
      v0->shape.size() != 3 || v0->shape[0] != 0 || v0->shape[1] < 1 || v0->shape[2] < 1)
    return std::nullopt;
  if (!n.inputs[1].empty() && !constant(g, n.inputs[1])) return std::nullopt;
  PasteLoop p;
  p.trips = m->int_data[0];
  p.canvas_h = v0->shape[1];
  p.canvas_w = v0->shape[2];
  for (const std::string& t : outer_scope_reads(n))
    if (!constant(g, t)) p.reads.push_back(t);
  if (p.reads.empty()) return std::nullopt;  // a loop over constants: not this pattern
  return p;
}

bool bound_paste_loop(Graph& g, std::size_t i) {
  if (g.dynamic_size <= 0) return false;
  Node& n = g.nodes[i];
  const auto p = paste_loop(g, n);
  if (!p) return false;
  for (const std::string& t : p->reads)
    if (!g.has_tensor(t) || !g.tensor(t).shape_known()) return false;  // unsized: stays on the host
  if (n.inputs.size() == 3) n.inputs.insert(n.inputs.end(), p->reads.begin(), p->reads.end());
  Tensor& out = g.tensors[n.outputs[0]];
  out.name = n.outputs[0];
  out.shape = {p->trips, p->canvas_h, p->canvas_w};
  out.type = ElemType::Float32;
  g.bounded_tensors.insert(n.outputs[0]);
  return true;
}

std::string paste_loop_bound_text(const Graph& g, const Node& n) {
  if (g.dynamic_size <= 0 || n.inputs.size() <= 3 || n.outputs.empty() || !g.bounded_tensors.count(n.outputs[0]))
    return "";
  const auto p = paste_loop(g, n);
  if (!p) return "";
  return "Loop costed at its --dynamic-size bound: " + std::to_string(p->trips) + " pastes of a full " +
         std::to_string(p->canvas_h) + " x " + std::to_string(p->canvas_w) +
         " canvas (each trip reads its mask and box once, " + std::to_string(kPasteBlendPasses) +
         " vector passes of the bilinear blend a canvas element, one canvas written); the real trips paste smaller boxes into zeros: an upper bound, not computed";
}

}  // namespace npu::compiler
