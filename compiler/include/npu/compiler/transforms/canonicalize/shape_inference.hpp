// Static shape inference over the Graph IR and the front-end's operator support table
// (which ops the compiler accepts, which of them always run on the host).
//
// Shape rules follow the ONNX operator specification (onnx/docs/Operators.md, opsets 9-17);
// conv/pool output sizes use
//   out = floor((in + pad_begin + pad_end - dilation*(k-1) - 1) / stride) + 1
// (ceil instead of floor with ceil_mode=1, minus one when the last window would start in
// the end padding, as PyTorch and onnxruntime do). Details: docs/compiler-frontend.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "npu/compiler/ir/graph.hpp"

namespace npu::compiler {

/// Op types with a shape rule, i.e. the ops the front-end accepts, in alphabetical order:
/// Add AveragePool BatchNormalization Clip Concat Conv Flatten Gemm GlobalAveragePool
/// HardSigmoid HardSwish Identity LeakyRelu MatMul MaxPool Mul Pow Relu Reshape Resize
/// Sigmoid Softmax Split Transpose.
const std::vector<std::string>& supported_ops();
bool is_supported_op(const std::string& op_type);

/// Kept for compatibility: no op type is host-only by name (placement.hpp decides per node).
bool is_host_only_op(const std::string& op_type);

/// Numpy (multidirectional) broadcasting of two shapes; nullopt when incompatible.
std::optional<std::vector<std::int64_t>> broadcast_shapes(const std::vector<std::int64_t>& a,
                                                          const std::vector<std::int64_t>& b);

/// One spatial output size of Conv/MaxPool/AveragePool (formula in the file comment).
/// Returns <= 0 when the window does not fit (the caller reports the error).
std::int64_t window_output_size(std::int64_t in, std::int64_t kernel, std::int64_t stride,
                                std::int64_t dilation, std::int64_t pad_begin,
                                std::int64_t pad_end, bool ceil_mode);

/// Infers the shape and element type of every node output, in node order, and writes
/// the attributes in canonical, explicit form so later stages need no defaults:
///   Conv: kernel_shape, strides, dilations, pads (auto_pad resolved to explicit pads and
///         removed), group; MaxPool/AveragePool: the same plus ceil_mode;
///   Concat/Flatten/Softmax/Split: non-negative axis; Split: explicit "split" sizes;
///   Transpose: explicit perm; Gemm: alpha, beta, transA, transB.
/// Graph inputs must have static shapes (model_loader applies --input-shape overrides
/// first). A node whose op type has no rule keeps its outputs' shapes if they are all
/// already known (so passes may re-run inference on fused nodes); otherwise it is an error.
/// Idempotent. Throws npu::ConfigError "SOURCE: error: node #I 'NAME' (OP): REASON; FIX"
/// for a shape mismatch, an undefined input, an unsupported op or a bad attribute.
void infer_shapes(Graph& graph, const std::string& source);

/// Infers one node (graph.nodes[index]) assuming its inputs are known; the same rules and
/// errors as infer_shapes() without the graph-wide checks. For builders that need the
/// shape of what they just added.
void infer_node(Graph& graph, std::size_t index, const std::string& source);

/// Marks the nodes that run on the host (Node::on_host, Node::host_reason): see placement.hpp.
void place_host_ops(Graph& graph);

}  // namespace npu::compiler
