// Activations that exports write out as several nodes, recognised as one node so they run as
// one vector-unit op and can be fused into a Conv/Gemm epilogue like any activation:
//  - GELU (erf form, torch before opset 20): Div(x, sqrt 2) -> Erf -> Add(1) -> Mul(x) ->
//    Mul(0.5), the Muls in any order (0.5 x (1 + erf(x / sqrt 2)), Hendrycks & Gimpel 2016);
//  - HardSwish (torch at opset < 14): Add(x, 3) -> Clip(0, 6) -> Mul(x) -> Div(6), Mul and
//    Div in either order (x * ReLU6(x + 3) / 6, Howard et al., MobileNetV3 2019), or
//    x * HardSigmoid(x) with alpha 1/6 and beta 0.5 (torchvision detection exports).
// Only chains whose inner tensors have a single reader and are no graph outputs are
// rewritten, so no value anyone reads disappears.
#pragma once

#include <vector>

#include "npu/compiler/ir/graph.hpp"

namespace npu::compiler {

/// Rewrites every matched chain into one node (op "Gelu" or "HardSwish", named after the
/// chain's first node, input x, output the chain's output). Returns how many it rewrote.
/// Run after shape inference (constants must be known).
int recognise_activations(Graph& graph);

/// Replaces the nodes at indices `chain` by `node`, placed where the chain's last node was
/// (every input of the chain is defined there). Shared by the recognisers.
void replace_chain(Graph& graph, const std::vector<std::size_t>& chain, Node node);

}  // namespace npu::compiler
