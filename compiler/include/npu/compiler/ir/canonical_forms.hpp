// Opset-dependent canonical forms of the IR (docs/compiler-frontend.md): inputs that ONNX
// moved from attributes to tensors in later opsets are folded back into attributes once they
// are constant, so the shape rules and lowerings read one form:
//  - Clip: min/max as float attributes (opset >= 11 constant inputs folded in), both always
//    present (absent bound = -FLT_MAX / FLT_MAX), one input;
//  - Split: sizes in the "split" attribute (the opset-13 input folded in), one input;
//  - Resize: "scales" (floats) or "sizes" (ints) attributes, one input; mode,
//    coordinate_transformation_mode and nearest_mode explicit (opset defaults applied);
//    Upsample (opset 9) becomes Resize (asymmetric, floor);
//  - Softmax: explicit axis (default 1 before opset 13, -1 from 13);
//  - PRelu whose constant slope holds one value (a scalar, or every channel alike: what
//    paddle2onnx and tf2onnx write for a LeakyReLU) becomes LeakyRelu with that alpha, one
//    input: the same function, which the activation unit runs and fuse-activation fuses.
#pragma once

#include <string>

#include "npu/compiler/ir/graph.hpp"

namespace npu::compiler {

/// Rewrites `n` into its canonical form when the inputs that form needs are constant in `g`;
/// leaves it unchanged otherwise (the importer calls it on every node, shape inference calls
/// it again after constant folding made computed inputs constant). Idempotent.
/// `where` prefixes messages ("model.onnx: error: node #3 'clip' (Clip)").
/// Throws npu::ConfigError for a Clip bound that is not a scalar and for Resize's
/// tf_crop_and_resize mode.
void canonicalise_node(const Graph& g, Node& n, const std::string& where);

}  // namespace npu::compiler
