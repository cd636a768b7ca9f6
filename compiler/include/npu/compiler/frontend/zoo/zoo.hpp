// Built-in model zoo: networks built in C++ from their published definitions, with the
// node and tensor names of the PyTorch 1.13 ONNX export (so zoo and ONNX layers can be
// matched in order) and BatchNormalization kept as separate nodes (constant statistics),
// as in a model exported from training.
//
// Weights are constant tensors with their shape but NO values (float_data empty): the
// compiler only needs shapes, and this keeps building ResNet-50 to about a millisecond.
// Small constants the host decode needs (YOLOv5 grids, anchors, strides, reshape shapes)
// do carry values. The returned graphs are shape-inferred and host-placed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "npu/compiler/ir/graph.hpp"

namespace npu::compiler {

struct ZooOptions {
  std::int64_t batch = 1;
  std::int64_t height = 0;  ///< input height in pixels; 0 = the model's default (224 / 640)
  std::int64_t width = 0;   ///< input width in pixels; 0 = the model's default
};

/// Canonical CNN zoo names: resnet18, resnet50, mobilenet_v2, yolov5s. The zoo LLMs are
/// llm_model_names() (zoo/llm/llm_spec.hpp), named as in zoo/llm/llm_name.hpp.
const std::vector<std::string>& zoo_model_names();

/// Canonical name for `name` (accepts the alias mobilenetv2; a valid LLM name becomes
/// "NAME:prefill=P:batch=B" or "NAME:decode=T:batch=B"), or nullopt if unknown or malformed.
std::optional<std::string> zoo_canonical_name(const std::string& name);

/// One zoo model listed under two spellings (gpt2:decode=8 and gpt2:batch=1:decode=8,
/// mobilenet_v2 and mobilenetv2): the indices {earlier, later} of the first such pair in `names`
/// (by zoo_canonical_name; names that are not zoo models are skipped), or nullopt.
std::optional<std::pair<std::size_t, std::size_t>> repeated_zoo_model(const std::vector<std::string>& names);

/// "NAME: error: unknown model (did you mean ...?): not a built-in model (the CNN and LLM
/// names) and not an .onnx file path".
std::string zoo_unknown_model_message(const std::string& name);

/// Builds a zoo model: a CNN, or an LLM graph for a name of llm_name.hpp. Throws
/// npu::ConfigError for an unknown name (zoo_unknown_model_message), a malformed LLM name
/// (parse_llm_model_name), options given to an LLM, or an input size the network cannot take
/// (e.g. YOLOv5s needs multiples of 32).
Graph build_zoo_model(const std::string& name, const ZooOptions& options = {});

/// torchvision.models.resnet18 / resnet50 (v1.5: stride on the 3x3 conv), 1000 classes.
Graph zoo_resnet18(const ZooOptions& options = {});
Graph zoo_resnet50(const ZooOptions& options = {});
/// torchvision.models.mobilenet_v2, width 1.0, ReLU6 as Clip(0, 6), 1000 classes.
Graph zoo_mobilenet_v2(const ZooOptions& options = {});
/// ultralytics/yolov5 v6.0 architecture (models/yolov5s.yaml at tag v7.0), nc=80, 640x640:
/// Conv-BN-SiLU (SiLU = Sigmoid + Mul), C3, SPPF, PAN neck, Detect with the box decode of
/// its ONNX export (placed on the host).
Graph zoo_yolov5s(const ZooOptions& options = {});

}  // namespace npu::compiler
