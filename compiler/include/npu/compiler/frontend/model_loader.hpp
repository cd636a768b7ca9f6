// One entry point for every front-end: a zoo name or an .onnx path in, a shape-inferred
// Graph with host placement out. Used by `npu compile` and the experiment runner.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "npu/compiler/ir/graph.hpp"

namespace npu::compiler {

struct LoadOptions {
  /// Fixed shapes for graph inputs, by input name (the --input-shape NAME=1x3x224x224
  /// option). Replaces the declared shape, dynamic or not. For a zoo model the input is
  /// "input" and only batch, height and width may change (channels stay 3).
  std::map<std::string, std::vector<std::int64_t>> input_shapes;
  /// Upper bound for sizes known only at run time (--dynamic-size N; 0 = none): a dimension
  /// ONNX's shape inference cannot fix (NonZero, NonMaxSuppression outputs) takes this value,
  /// so what follows (e.g. a detector's RoI heads) is compiled for the worst case instead of
  /// going to the host unsized. Graph::bounded_tensors lists every tensor sized so.
  std::int64_t dynamic_size = 0;
  /// Run a Dropout whose training_mode is true as the identity, as inference does
  /// (--dropout-as-identity); without it such a Dropout is refused (training-dropout pass).
  bool dropout_as_identity = false;
};

/// Adds one --input-shape value to `options`. Throws npu::ConfigError when the value is
/// malformed (parse_input_shape) or names an input already given.
void add_input_shape(LoadOptions& options, const std::string& spec);

/// Parses one --input-shape value "NAME=D0xD1x...". Throws npu::ConfigError naming the
/// bad text and the expected form when it is malformed or a dimension is not positive.
std::pair<std::string, std::vector<std::int64_t>> parse_input_shape(const std::string& spec);

/// Loads `model_or_path`: a zoo name (resnet18, resnet50, mobilenet_v2 alias mobilenetv2,
/// yolov5s; zoo.hpp) or the path of an .onnx file (anything ending in .onnx or containing
/// '/', or any other existing file that is not a zoo name). Applies options.input_shapes, runs infer_shapes() and place_host_ops().
/// Throws npu::ConfigError: unknown name (lists the zoo names), every import error of
/// import_onnx(), an override naming no graph input, a graph input left with a dynamic
/// dimension ("re-export with a fixed input shape or pass --input-shape NAME=..."), and
/// shape-inference errors.
Graph load_model(const std::string& model_or_path, const LoadOptions& options = {});

/// Same as load_model on an .onnx file, from the serialized ModelProto `bytes` (in memory;
/// import_onnx_bytes); `source` names the model in messages and in Graph::source. External
/// tensor data is looked up relative to the current folder. Throws as load_model does.
Graph load_model_bytes(const std::string& bytes, const std::string& source, const LoadOptions& options = {});

}  // namespace npu::compiler
