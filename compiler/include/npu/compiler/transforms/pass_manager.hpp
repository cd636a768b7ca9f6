// Runs a list of registered passes (pass_registry.hpp) of one kind over a graph or a program
// and records every decision they take, for `npu compile --explain`.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "npu/compiler/ir/graph.hpp"
#include "npu/compiler/transforms/pass.hpp"

namespace npu::compiler {

class PassManager {
 public:
  PassManager() = default;
  /// Takes ownership of the passes; they run in the given order.
  explicit PassManager(std::vector<std::unique_ptr<Pass>> passes);
  /// Graph passes by name (pass_names()), as a strategy lists them; throws ConfigError naming
  /// an unknown pass, or a pass of another kind, and the allowed names.
  static PassManager from_names(const std::vector<std::string>& names);
  /// Passes of `kind` by name; throws ConfigError as from_names does.
  static PassManager of_kind(PassKind kind, const std::vector<std::string>& names);

  void add(std::unique_ptr<Pass> pass) { passes_.push_back(std::move(pass)); }
  const std::vector<std::unique_ptr<Pass>>& passes() const { return passes_; }

  /// Runs every import or graph pass once, in order. For each candidate of a graph pass, in
  /// node order: if a node of the candidate was already consumed by an earlier rewrite of the
  /// same pass it is skipped silently; otherwise it is checked and rewritten or declined.
  /// Returns all decisions in the order taken.
  std::vector<Decision> run(Graph& graph) const { return run(graph, PassContext{}); }
  /// As run(graph), with the context; a graph pass that found no candidate adds one Summary
  /// decision saying so (labelled ctx.model), so every pass that ran is in --explain.
  std::vector<Decision> run(Graph& graph, const PassContext& ctx) const;
  /// Runs every program pass once, in order, over `program` (ctx.hw must be set).
  std::vector<Decision> run(isa::Program& program, PassContext& ctx) const;

 private:
  std::vector<std::unique_ptr<Pass>> passes_;
};

/// The import passes load_model runs on an ONNX graph: every registered import pass, in
/// pipeline order (infer-shapes, fold-qdq, recognise-activations, recognise-layernorm, recognise-affine,
/// merge-pads, recognise-kv-cache, place-host-ops).
std::vector<std::string> onnx_import_passes();

/// Runs the import passes `names` on `graph` (ctx: source = graph.source or `source`) and
/// appends their decisions to graph.import_decisions. Throws what the passes throw.
void run_import_passes(Graph& graph, const std::vector<std::string>& names, const std::string& source);

/// The --explain table, one decision per line, columns aligned:
///   fold-batchnorm   conv1 + bn1                 folded
///   fold-batchnorm   layer1.0.conv3 + bn3        declined: conv output also feeds ...
///   merge-pads       resnet18                    merged 0 Pad node(s)
std::string format_explain(const std::vector<Decision>& decisions);

}  // namespace npu::compiler
