// Activations that exports write out as several nodes, recognised as one node so they run as
// one vector-unit op and can be fused into a Conv/Gemm epilogue like any activation. The
// recognition is by math, not by node sequence (issue 30): every closed single-input
// element-wise subgraph y = f(x) (scalar_function.hpp) is evaluated at the probe points and
// compared with each formula, so any node order, operand order, Div by c or Mul by 1/c, Pow(x, 3)
// or x*x*x, Clip bounds as attributes or inputs, and Min/Max for Clip are all one form:
//  - GELU, erf form 0.5 x (1 + erf(x / sqrt 2)) -> Gelu; tanh form 0.5 x (1 + tanh(sqrt(2/pi)
//    (x + 0.044715 x^3))) (GPT-2's "gelu_new") -> Gelu approximate="tanh" (Hendrycks & Gimpel
//    2016);
//  - HardSwish x * ReLU6(x + 3) / 6 (Howard et al., MobileNetV3 2019) -> HardSwish;
//  - HardSigmoid max(0, min(1, a x + b)), a > 0, a and b read off the probes -> HardSigmoid;
//  - SiLU x * sigmoid(x) in any spelling (x / (1 + exp(-x)), ...) -> Sigmoid(x) then Mul(x, .),
//    the pair fuse-activation fuses (the canonical pair itself is left alone);
//  - ReLU6 and other clamps min(max(x, lo), hi) -> Clip with attributes min/max (a bound not
//    reached within +-1000 is absent); max(x, 0) written as several nodes -> Relu;
//  - Mish x tanh(softplus(x)) is recognised and declined (no NPU op runs it as one).
// The replacement is named after the subgraph's first node and placed where its last node was.
// The match tolerance is 1e-5 (1 + |f|), far below the 4.7e-4 that separates the two GELUs.
#pragma once

#include <vector>

#include "npu/compiler/ir/decision.hpp"
#include "npu/compiler/ir/graph.hpp"

namespace npu::compiler {

/// Rewrites every recognised subgraph (see above), repeating until none is left. Returns how
/// many it rewrote; `decisions` (optional) receives one applied decision per rewrite (the
/// function and the nodes it replaced) and one declined per Mish. Run after shape inference
/// (constants must be known).
int recognise_activations(Graph& graph, std::vector<Decision>* decisions = nullptr);

/// Replaces the nodes at indices `chain` by `node`, placed where the chain's last node was
/// (every input of the chain is defined there). Shared by the recognisers.
void replace_chain(Graph& graph, const std::vector<std::size_t>& chain, Node node);

}  // namespace npu::compiler
