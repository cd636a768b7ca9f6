// LayerNorm exported in decomposed form (torch before opset 17, and converters): ReduceMean ->
// Sub -> Pow(2) or Mul(d, d) -> ReduceMean -> the factor 1/sqrt(var + eps) in any spelling
// (Add eps, Sqrt then Div, Reciprocal or Div(1, .) then Mul, Pow(., -0.5); recognised by math,
// norm_factor.hpp) -> [Mul(gamma)] -> [Add(beta)], all over the last axis, recognised as one
// LayerNormalization (Ba et al., 2016) so it runs as one row-wise vector-unit op (3 passes)
// instead of nine layers with eight DDR round trips. An epsilon outside the square root is
// declined with the reason. Only chains whose inner tensors have no other reader and are no
// graph outputs are rewritten.
#pragma once

#include <vector>

#include "npu/compiler/ir/decision.hpp"
#include "npu/compiler/ir/graph.hpp"

namespace npu::compiler {

/// Rewrites every matched chain into one LayerNormalization node (axis -1, the chain's
/// epsilon; gamma/beta the constants of the Mul/Add, or ones / absent when missing), named
/// after the chain's first ReduceMean. Returns how many; `decisions` (optional) gets one
/// declined decision per LayerNorm-like chain whose factor is not 1/sqrt(var + eps). Run after
/// shape inference.
int recognise_layernorm(Graph& graph, std::vector<Decision>* decisions = nullptr);

}  // namespace npu::compiler
