// Pre-quantised models: QDQ graphs (QuantizeLinear/DequantizeLinear around Conv, MatMul,
// Add, ... as ONNX Runtime's quantiser writes them) and QLinearConv/QLinearMatMul models are
// turned into the float graph the fusion passes and the lowering know, with every tensor's
// scale and zero point kept in Tensor::quant. On the int8 presets the NPU computes in int8
// anyway, so the program (tiles, bytes, cycles) is the one of the float model with the same
// weights; the recorded parameters are what an int8 execution uses instead of calibrating.
// docs/compiler-frontend.md, "Quantised models".
#pragma once

#include "npu/compiler/ir/graph.hpp"

namespace npu::compiler {

struct QdqFolding {
  int qlinear_ops = 0;          ///< QLinearConv / QLinearMatMul rewritten as DQ -> op -> Q
  int dequantized_constants = 0;  ///< DequantizeLinear of a constant: now a float constant
  int removed_qdq = 0;          ///< QuantizeLinear / DequantizeLinear nodes removed as aliases
};

/// Rewrites `graph` in place (after shape inference; shapes are kept):
///  1. QLinearConv(x, xs, xz, w, ws, wz, ys, yz, B) -> DequantizeLinear(x) -> Conv(., DQ(w),
///     B * xs * ws[c]) -> QuantizeLinear(ys, yz); QLinearMatMul likewise (ONNX semantics:
///     the int32 bias has scale xs * ws and zero point 0).
///  2. DequantizeLinear of a constant with constant scale and zero point: a float constant
///     (q - zero_point) * scale (per channel along `axis` when the scale is 1-D), quant kept.
///  3. QuantizeLinear and DequantizeLinear whose scale and zero point are constant are
///     removed: their consumers read the input tensor (or, where the output is a graph
///     output, the producer writes the output name), which records the parameters.
/// Nodes with a non-constant scale or zero point stay (and are placed on the host with
/// their reason). Errors: none beyond those of the importer.
QdqFolding fold_qdq(Graph& graph);

}  // namespace npu::compiler
