// ONNX front-end: reads an .onnx file (onnx::ModelProto, Debian's libonnx + protobuf)
// into the Graph IR. The result is NOT shape-inferred: model_loader.hpp does that after
// applying --input-shape overrides. Canonical IR forms written here (docs/compiler-frontend.md):
//  - Constant nodes disappear: their outputs become constant tensors;
//  - Clip: min/max as float attributes (opset >= 11 constant inputs folded in), both always
//    present (absent bound = -FLT_MAX / FLT_MAX), one input;
//  - Split: sizes in the "split" attribute (the opset-13 input folded in), one input;
//  - Resize: "scales" (floats) or "sizes" (ints) attributes, one input; mode,
//    coordinate_transformation_mode and nearest_mode explicit (opset defaults applied);
//    Upsample (opsets 9) becomes Resize (asymmetric, floor);
//  - Softmax: explicit axis (default 1 before opset 13, -1 from 13);
//  - unnamed nodes are named "<OpType>_<index>"; unused constants are dropped.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "npu/compiler/ir/graph.hpp"

namespace npu::compiler {

/// Facts about an imported file that the Graph does not hold.
struct OnnxModelInfo {
  std::int64_t opset = 0;         ///< ai.onnx opset version
  std::int64_t ir_version = 0;
  std::string producer;           ///< producer_name + " " + producer_version
  int constant_nodes = 0;         ///< Constant nodes turned into constant tensors
  /// Per graph input, the symbolic name of each dimension ("" when it has a value);
  /// used to word the "dynamic dimension" error.
  std::map<std::string, std::vector<std::string>> dim_params;
  /// Per graph output that declares a shape, its dimensions (-1 for a dimension without a
  /// value); load_model warns when inference gives another shape (declared_output_warnings).
  std::map<std::string, std::vector<std::int64_t>> declared_outputs;
};

/// One warning per graph output of `g` whose declared shape (`info.declared_outputs`) has a
/// rank or a known dimension that differs from the shape inference gave it, naming both
/// shapes: the file's declaration is wrong, and every result uses the inferred shape.
std::vector<std::string> declared_output_warnings(const Graph& g, const OnnxModelInfo& info);

/// Oldest and newest ai.onnx opset the importer accepts.
constexpr std::int64_t kMinOnnxOpset = 9;
constexpr std::int64_t kMaxOnnxOpset = 17;

/// Reads the ONNX file at `path`. Initializers (raw_data or typed fields; float, float16,
/// double -> float32; int64, int32, int8, uint8, bool -> int64) and Constant outputs become
/// constant tensors with data; graph inputs keep their declared shapes, -1 for a dimension
/// without a value. Throws npu::ConfigError "PATH: error: ..." with a fix for: a missing
/// or unreadable file, a file protobuf cannot parse (truncated/corrupt), a file without a
/// graph, an opset outside 9..17, an op outside supported_ops() (naming node and op), a
/// node input that nothing defines, and malformed tensors or attributes.
Graph import_onnx(const std::string& path, OnnxModelInfo* info = nullptr);

/// Same, from serialized ModelProto bytes; `source` names the model in error messages.
Graph import_onnx_bytes(const std::string& bytes, const std::string& source,
                        OnnxModelInfo* info = nullptr);

/// One serialized onnx::TensorProto (e.g. a `test_data_set_0/input_0.pb` of the ONNX
/// backend-test layout) converted as initializers are (float16/double -> float32 data,
/// integer types -> int64 data; Tensor::name is the proto's name, maybe empty). External data
/// is looked up under `base_dir`. Throws npu::ConfigError "SOURCE: error: ..." for bytes that
/// are no TensorProto, a missing data type, a value count that does not match the dims and
/// an unsupported data type.
Tensor import_tensor_proto(const std::string& bytes, const std::string& source, const std::string& base_dir);

}  // namespace npu::compiler
