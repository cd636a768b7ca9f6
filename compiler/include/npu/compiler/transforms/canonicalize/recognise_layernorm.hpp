// LayerNorm exported in decomposed form (torch before opset 17, and converters): ReduceMean ->
// Sub -> Pow(2) -> ReduceMean -> Add(eps) -> Sqrt -> Div -> [Mul(gamma)] -> [Add(beta)], all
// over the last axis, recognised as one LayerNormalization (Ba et al., 2016) so it runs as
// one row-wise vector-unit op (3 passes) instead of nine layers with eight DDR round trips.
// Only chains whose inner tensors have no other reader and are no graph outputs are rewritten.
#pragma once

#include "npu/compiler/ir/graph.hpp"

namespace npu::compiler {

/// Rewrites every matched chain into one LayerNormalization node (axis -1, the chain's
/// epsilon; gamma/beta the constants of the Mul/Add, or ones / absent when missing), named
/// after the chain's first ReduceMean. Returns how many. Run after shape inference.
int recognise_layernorm(Graph& graph);

}  // namespace npu::compiler
