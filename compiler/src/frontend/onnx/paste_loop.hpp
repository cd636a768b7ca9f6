// Internal to the compiler library: torchvision's paste-masks Loop (Mask R-CNN's
// `_onnx_paste_masks_in_image_loop`) recognised by its structure and bounded by --dynamic-size.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "npu/compiler/ir/graph.hpp"

namespace npu::compiler {

/// Vector passes a canvas element a bounded paste costs: the bilinear blend's rows (sub, mul,
/// add) then columns (the same), as codegen/resize_linear.cpp computes a bilinear Resize.
constexpr int kPasteBlendPasses = 6;

/// A Loop that pastes one resized mask per trip into a zero canvas and appends the canvas to
/// its accumulator: inputs (M, cond, v0) with M a constant trip count, v0 a constant of shape
/// [0, H, W] (the empty accumulator), one output; a body with a bilinear ("linear") Resize, a
/// ConstantOfShape of zeros read by a Concat (the padding around the pasted mask), and its
/// carried output a Concat along axis 0 of the carried input and one [1, H, W] canvas.
/// Recognised by structure only, not by names.
struct PasteLoop {
  std::int64_t trips = 0;                ///< M: the trip count (detections)
  std::int64_t canvas_h = 0, canvas_w = 0;  ///< H, W of v0 (the canvas: the image size)
  std::vector<std::string> reads;        ///< computed tensors of the enclosing graph the body reads
};

/// The paste loop `n` of `g` is, or nullopt (any other node or form).
std::optional<PasteLoop> paste_loop(const Graph& g, const Node& n);

/// Under --dynamic-size (g.dynamic_size > 0): when g.nodes[i] is a paste loop, its body's
/// reads of computed outer tensors become node inputs after v0 (so every pass sees the Loop
/// read them), its output gets the shape [M, H, W] and is marked bounded, and true is returned.
/// False (graph unchanged) otherwise.
bool bound_paste_loop(Graph& g, std::size_t i);

/// For a Loop bound_paste_loop sized: what its cost stands for, "Loop costed at its
/// --dynamic-size bound: M pastes of a full H x W canvas (...)" (the layer's note, --explain,
/// the refusal of a run with data); "" for any other node.
std::string paste_loop_bound_text(const Graph& g, const Node& n);

}  // namespace npu::compiler
