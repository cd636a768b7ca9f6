// Private helper of the zoo (compiler/src/frontend/zoo/*.cpp): builds a Graph node by node with the
// naming scheme of PyTorch 1.13's ONNX exporter, inferring shapes as it goes.
//
// Exporter naming (torch.onnx, opset 13): a node inside module "a.b.0.c" is named
// "/a/a.b.0/c/OpType" - one path component per module, where a numbered child of a
// Sequential keeps its parent's name as prefix ("layer1.0", "conv.0.0") - its output is
// "<node name>_output_<i>", and a parameter keeps its state-dict name ("a.b.0.c.weight").
// A module called twice gets "_1", "_2" ... on its second, third call ("relu_1").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "npu/compiler/ir/graph.hpp"

namespace npu::compiler::zoo_detail {

/// "features.1.conv.0.0" -> "/features/features.1/conv/conv.0/conv.0.0".
std::string scope_of(const std::string& module_path);

class ZooBuilder {
 public:
  explicit ZooBuilder(std::string graph_name);

  /// Drops a leading scope component from every scope(): YOLOv5 runs the children of its
  /// "model" Sequential one by one, so the exporter never opens a "/model" scope.
  void strip_scope(std::string component) { strip_ = "/" + std::move(component); }
  /// scope_of(module) minus the stripped component.
  std::string scope(const std::string& module) const;

  /// Declares a graph input (float32 unless `type` says otherwise).
  std::string input(const std::string& name, std::vector<std::int64_t> shape,
                    ElemType type = ElemType::Float32);
  /// A weight: constant float tensor with a shape and no values (see zoo.hpp).
  std::string weight(const std::string& name, std::vector<std::int64_t> shape);
  /// Constant float tensor with values.
  std::string constant(const std::string& name, std::vector<std::int64_t> shape,
                       std::vector<float> values);
  /// Constant int64 tensor with values.
  std::string constant_ints(const std::string& name, std::vector<std::int64_t> shape,
                            std::vector<std::int64_t> values);

  /// Adds a node named `name` and infers its output shapes; returns the outputs'
  /// names ("<name>_output_<i>").
  std::vector<std::string> add(const std::string& op, const std::string& name,
                               std::vector<std::string> inputs,
                               std::map<std::string, AttrValue> attrs = {}, int outputs = 1);
  /// add() with one output, returned.
  std::string add1(const std::string& op, const std::string& name,
                   std::vector<std::string> inputs, std::map<std::string, AttrValue> attrs = {});

  /// add() for an op the compiler's shape inference has no rule for (Gather, Slice, Expand,
  /// LayerNormalization ...): its one output gets `shape` and the type of input 0 (or
  /// `type` when given). Returns the output's name.
  std::string add_shaped(const std::string& op, const std::string& name,
                         std::vector<std::string> inputs, std::map<std::string, AttrValue> attrs,
                         std::vector<std::int64_t> shape, std::optional<ElemType> type = std::nullopt);

  const std::vector<std::int64_t>& shape(const std::string& tensor) const;
  std::int64_t channels(const std::string& tensor) const { return shape(tensor).at(1); }

  /// Renames the tensor `from` (a node output) to `to` (e.g. "output").
  void rename_output(const std::string& from, const std::string& to);

  /// Conv [+ bias] with attributes in explicit form; weight "<module>.weight"
  /// [cout, cin/group, k, k], bias "<module>.bias" if `bias`. Node "<node_scope>/Conv",
  /// node_scope defaulting to scope(module).
  std::string conv(const std::string& module, const std::string& x, std::int64_t cout,
                   std::int64_t k, std::int64_t stride, std::int64_t pad, std::int64_t group = 1,
                   bool bias = false, const std::string& node_scope = "");
  /// BatchNormalization (inference form) with "<module>.weight/bias/running_mean/running_var".
  std::string batchnorm(const std::string& module, const std::string& x, float epsilon,
                        float momentum);

  /// Finishes: sets the graph outputs and runs the import passes `passes` (by default shape
  /// inference and host placement, all a canonical CNN zoo graph needs; the LLM builder, which
  /// writes norms and activations decomposed as torch exports them, runs every ONNX import pass).
  Graph finish(const std::vector<std::string>& outputs,
               const std::vector<std::string>& passes = {"infer-shapes", "place-host-ops"});

 private:
  Graph g_;
  std::string source_;
  std::string strip_;
};

}  // namespace npu::compiler::zoo_detail
