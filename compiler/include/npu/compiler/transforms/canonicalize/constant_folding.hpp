// Constant folding of the subgraphs that are computable at compile time: from initializers,
// Constant nodes and static shapes. torch.onnx.export leaves shape arithmetic in the graph
// (Shape -> Gather -> Unsqueeze -> Concat -> Reshape, ConstantOfShape, Range, Expand...), and
// deduplicated initializers reach their users through Identity nodes; once the input shape
// is static all of it is constant. Semantics follow the ONNX operator specification
// (onnx/docs/Operators.md, opsets 9-17).
#pragma once

#include <cstddef>
#include <string>

#include "npu/compiler/ir/graph.hpp"

namespace npu::compiler {

/// Largest constant (elements) folding produces; a bigger result is left to run as an op.
constexpr std::int64_t kMaxFoldedElements = std::int64_t(1) << 26;

/// Evaluates graph.nodes[index] at compile time when every input it reads is constant, or
/// when it only reads static shapes (Shape, Size of a tensor with a known shape). Foldable
/// ops: Identity, Dropout (inference: identity), Shape, Size, Gather, Unsqueeze, Squeeze,
/// Concat, Slice, Reshape, Flatten, Transpose, Expand, Tile, ConstantOfShape, Range, Cast,
/// Where, Not, Equal, Less, Greater, element-wise Add/Sub/Mul/Div/Pow/Min/Max/Mod and unary
/// Neg/Abs/Sqrt/Reciprocal/Exp/Log/Floor/Ceil/Relu/Sigmoid/Erf/Tanh, ReduceProd/ReduceSum/
/// ReduceMax/ReduceMin/ReduceMean and ScatterND of constants. On success the node's outputs become constant
/// tensors (shape, type, data) and it returns true; the caller removes the node. Returns false
/// (graph unchanged) for any other node. Integer division truncates toward zero (C/ONNX
/// Runtime semantics); Cast to an integer type truncates toward zero.
/// Throws npu::ConfigError naming the node for an out-of-range Gather index or a malformed
/// constant (e.g. Reshape of 12 elements to [5, -1]).
bool fold_node(Graph& graph, std::size_t index, const std::string& source);

}  // namespace npu::compiler
