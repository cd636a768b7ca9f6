// Graph IR of the compiler: Nodes (ONNX op names and attribute semantics) over Tensors.
// Shapes are NCHW for 4-D activations, [K, C/group, kh, kw] for Conv weights (ONNX).
// Front-ends (ONNX import, the built-in zoo, SCALE-Sim CSV) produce a Graph; passes
// rewrite it; lowering turns it into an isa::Program. No SystemC here.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "npu/compiler/ir/decision.hpp"

namespace npu::compiler {

/// Element type of a tensor in the source network (ONNX TensorProto data types we use).
enum class ElemType { Float32, Float16, Int64, Int32, Int8, Uint8, Bool };
int elem_bytes(ElemType t);

/// How a quantised model (QDQ or QLinear ops, as ONNX Runtime's quantiser writes them)
/// quantised a tensor: real = (q - zero_point) * scale, per tensor (one scale) or per
/// channel along `axis` (ONNX QuantizeLinear/DequantizeLinear semantics). fold_qdq.hpp
/// records it where it folds the Q/DQ nodes away.
struct QuantParams {
  std::vector<float> scale;
  std::vector<std::int64_t> zero_point;
  std::int64_t axis = 1;
  ElemType type = ElemType::Int8;  ///< Int8 or Uint8: the quantised element type
};

/// A tensor: name, static shape (every dim > 0 once shape inference ran), element type,
/// and constant data when it is an initializer / Constant output (weights, BN stats...).
/// Constant float data is kept as float32 (converted on import); int64 data (shapes, axes)
/// as int64.
struct Tensor {
  std::string name;
  std::vector<std::int64_t> shape;  ///< empty = scalar; -1 = unknown before inference
  ElemType type = ElemType::Float32;
  bool is_constant = false;
  std::vector<float> float_data;       ///< constant float data (row-major), if is_constant
  std::vector<std::int64_t> int_data;  ///< constant integer data, if is_constant
  std::optional<QuantParams> quant;    ///< set for tensors of a quantised model (fold_qdq.hpp)
  std::int64_t elements() const;       ///< product of shape (1 for a scalar); -1 if unknown
  bool shape_known() const;
};

/// ONNX attribute value.
using AttrValue = std::variant<std::int64_t, float, std::string, std::vector<std::int64_t>, std::vector<float>>;

/// A node: ONNX op type (e.g. "Conv", "BatchNormalization"), its attributes, and the names
/// of input and output tensors (an empty input name = optional input absent, as in ONNX).
struct Node {
  std::string name;
  std::string op_type;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::map<std::string, AttrValue> attrs;
  /// Placed on the host CPU instead of the NPU (e.g. the YOLO box decode after the Detect
  /// convolutions): the compiler emits no NPU code for it and reports it as host work.
  /// Set by place_host_ops() (shape_inference.hpp); rule in docs/compiler-frontend.md.
  bool on_host = false;
  std::string host_reason;  ///< why on_host is set, for reports ("Transpose: no NPU unit")
  /// The node as the ONNX file wrote it (a serialized onnx::NodeProto), so ONNX's own shape
  /// inference (onnx_node_inference.hpp) can run on ops the compiler has no rule for. Empty
  /// for nodes built in code or by passes.
  std::string onnx_proto;

  std::int64_t attr_int(const std::string& key, std::int64_t fallback) const;
  float attr_float(const std::string& key, float fallback) const;
  std::string attr_string(const std::string& key, const std::string& fallback) const;
  std::vector<std::int64_t> attr_ints(const std::string& key, std::vector<std::int64_t> fallback = {}) const;
  bool has_attr(const std::string& key) const { return attrs.count(key) != 0; }
};

/// The network. Nodes are kept in a topological order (front-ends guarantee it; passes
/// preserve it). Tensors are owned by the graph, keyed by name.
struct Graph {
  std::string name;
  /// Where the graph came from, for messages: the .onnx path or the zoo name (load_model
  /// sets it); empty for graphs built in code (messages then name the graph).
  std::string source;
  /// ai.onnx opset the node semantics follow (the file's import; 13 for graphs built in code).
  std::int64_t opset = 13;
  /// LoadOptions::dynamic_size: the value given to dimensions known only at run time (0:
  /// they stay unknown), and the tensors whose shape depends on such a bound.
  std::int64_t dynamic_size = 0;
  std::set<std::string> bounded_tensors;
  /// LoadOptions::dropout_as_identity (the training-dropout import pass reads it).
  bool dropout_as_identity = false;
  /// Warnings of the import passes (e.g. a training-mode Dropout run as the identity);
  /// compile() repeats them in CompileResult::warnings, so every tool prints them.
  std::vector<std::string> import_warnings;
  std::vector<std::string> inputs;   ///< graph input tensor names (non-constant)
  std::vector<std::string> outputs;  ///< graph output tensor names
  std::vector<Node> nodes;
  std::map<std::string, Tensor> tensors;
  /// What the import-time passes did to this graph (transforms/canonicalize/, run by the
  /// front end in load_model or the zoo builder), in the order they ran; compile() puts them
  /// first in its decisions, so --explain lists every pass from import to program.
  std::vector<Decision> import_decisions;

  Tensor& tensor(const std::string& name);              ///< throws std::out_of_range
  const Tensor& tensor(const std::string& name) const;  ///< throws std::out_of_range
  bool has_tensor(const std::string& name) const { return tensors.count(name) != 0; }
  /// Indices of nodes that read `tensor` (in node order).
  std::vector<std::size_t> consumers(const std::string& tensor) const;
  /// Index of the node that writes `tensor`, or nullopt for graph inputs and constants.
  std::optional<std::size_t> producer(const std::string& tensor) const;
};

}  // namespace npu::compiler
