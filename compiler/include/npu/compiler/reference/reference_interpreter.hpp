// Graph-level fp32 reference interpreter: executes an imported model (the Graph IR as
// load_model() returns it, constants with their data) on given input tensors and returns
// every graph output, and any named intermediate. It is the "what the network computes"
// side of functional checking (docs/functional.md, "Reference interpreter"): written from
// the ONNX operator specification (onnx/docs/Operators.md, opsets 9-17), independent of the
// compiler's lowering and of the hardware models' data path.
//
// Layouts are the ONNX ones: activations NCHW (N-D row-major in general), Conv weights
// [K, C/group, kh, kw], Gemm/MatMul row-major. Float data (float32, float16, double in the
// model) is computed in float32; integer and bool tensors (shape arithmetic left in the
// graph, Gather indices) are kept as int64.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "npu/compiler/ir/graph.hpp"

namespace npu::compiler {

/// A tensor with data, as the interpreter reads and produces it. Exactly one of `f` (type
/// Float32) or `i` (any integer or bool type, values widened to int64) holds the
/// elements, row-major, `elements()` of them. A scalar has an empty shape and one element.
struct RefTensor {
  std::vector<std::int64_t> shape;
  ElemType type = ElemType::Float32;
  std::vector<float> f;         ///< float32 data when type == Float32
  std::vector<std::int64_t> i;  ///< integer data otherwise
  bool is_float() const { return type == ElemType::Float32; }
  std::int64_t elements() const;  ///< product of shape (1 for a scalar)
  /// A float32 tensor of `shape` filled with `value`.
  static RefTensor zeros(std::vector<std::int64_t> shape, float value = 0.0f);
};

/// Tensors by name (graph inputs in, graph outputs and kept intermediates out).
using RefTensorMap = std::map<std::string, RefTensor>;

struct ReferenceOptions {
  /// Intermediate tensors to return besides the graph outputs (names as in the Graph).
  /// An unknown name is an error.
  std::vector<std::string> keep;
  /// Return every tensor a node computes (layer-by-layer comparison; costs the memory of all
  /// intermediates: 490 MB for YOLOv5s at 640x640).
  bool keep_all = false;
  /// Worker threads for the heavy ops (Conv, ConvTranspose, Gemm, MatMul); 0 = hardware
  /// concurrency. The
  /// result does not depend on it: every output element is summed by one thread, in the
  /// same order.
  int threads = 0;
  /// Quantised models (QDQ / QLinear ops, folded at load into float ops with the parameters
  /// kept in Tensor::quant, fold_qdq.hpp): true rounds every tensor that carries parameters
  /// to its integer grid where it is computed (graph inputs on entry), i.e. applies ONNX
  /// QuantizeLinear then DequantizeLinear: (saturate(round_half_even(x / s) + zp) - zp) * s,
  /// per tensor or per channel along the axis, saturating to int8 [-128, 127] or uint8
  /// [0, 255]. That is what the file computes (ONNX Runtime agrees). false: the float graph
  /// with the dequantised weights. No effect on models without Tensor::quant.
  bool apply_quant = true;
  /// If set, receives the wall-clock seconds spent per op type (added to what it holds), for
  /// benchmarks and profiling.
  std::map<std::string, double>* seconds_per_op = nullptr;
};

/// Runs `graph` in fp32 on `inputs` (one entry per graph input, same shape as the graph
/// declares; float inputs as Float32, integer inputs as any integer type). Nodes run in
/// graph order; an intermediate is freed after its last reader unless it is kept.
/// Returns every graph output and every `options.keep` tensor (every computed tensor with
/// `keep_all`), by name.
/// Throws npu::ConfigError, naming the graph's source:
///  - an input missing, of the wrong shape or element kind, or a name not a graph input;
///  - a constant without data (the built-in zoo models carry shapes only: load an .onnx);
///  - a node whose op the interpreter does not implement ("node #I 'NAME' (OP): the
///    reference interpreter does not implement OP"), or an attribute value it does not
///    implement (e.g. Resize mode cubic) -- never a silent zero;
///  - an attribute that Conv, ConvTranspose, MaxPool/AveragePool, Gemm or BatchNormalization
///    does not have in ONNX (e.g. an exporter's `activation` on a Conv): refused, not ignored;
///  - an output whose computed shape differs from the shape inferred at load (a shape
///    inference or interpreter bug: both are named);
///  - a `keep` name that is no tensor of the graph.
RefTensorMap run_reference(const Graph& graph, const RefTensorMap& inputs, const ReferenceOptions& options = {});

/// ONNX op types the interpreter implements, sorted.
std::vector<std::string> reference_ops();

/// How far a tensor is from a reference tensor (compare_tensors).
struct TensorDiff {
  double max_abs = 0;  ///< max |a - b| over the elements; NaN when any difference is NaN
  double max_ref = 0;  ///< max |b|
  double max_rel = 0;  ///< max_abs / max_ref (0 when both are 0; infinity when max_ref is 0 and max_abs is not)
};

/// Compares `a` with the reference `b` element by element (same shape and element kind;
/// integer tensors compare as their values). Throws npu::ConfigError when shapes or kinds
/// differ.
TensorDiff compare_tensors(const RefTensor& a, const RefTensor& b);

}  // namespace npu::compiler
