// ONNX's own shape inference (Debian's libonnx, onnx::shape_inference) applied to one node
// of the Graph IR, for every standard op the compiler has no hand-written rule for
// (shape_inference.cpp keeps rules only where it also canonicalises attributes).
#pragma once

#include <cstddef>
#include <string>

#include "npu/compiler/ir/graph.hpp"

namespace npu::compiler {

/// Infers the outputs of graph.nodes[index] with the op's ONNX schema (opset graph.opset):
/// builds a one-node onnx::GraphProto whose inputs carry the IR tensors' element types and
/// static shapes (integer constants and small float constants also as initializers, so
/// data-dependent rules such as Reshape, Expand, Tile or ConstantOfShape see their values),
/// runs onnx::shape_inference::InferShapes in strict mode with data propagation, and writes
/// the inferred shape and type into every output tensor. Returns false when an output has a
/// data-dependent dimension (NonZero, NonMaxSuppression, TopK with a computed k...): that
/// dimension is written as -1 and the caller places the node and its users on the host.
/// Needs Node::onnx_proto (set by the ONNX importer). Throws npu::ConfigError
/// "SOURCE: error: node #I 'NAME' (OP): REASON; FIX" when the node has no ONNX form, ONNX
/// has no schema for the op at this opset, or the schema's inference fails.
bool onnx_infer_node(Graph& graph, std::size_t index, const std::string& source);

/// The IR element type of an ONNX TensorProto data type (float16, int64, int32, int8, uint8,
/// bool keep their type; every other type, e.g. double, is held as float32).
ElemType ir_elem_type(int onnx_data_type);

/// True when ONNX has a schema for `op_type` in the default domain at `opset`.
bool onnx_has_schema(const std::string& op_type, std::int64_t opset);

}  // namespace npu::compiler
