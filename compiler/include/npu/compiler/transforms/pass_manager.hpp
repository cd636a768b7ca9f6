// Runs a list of passes over a graph and records every decision they take.
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
  /// Passes by name (pass_names()); throws ConfigError naming the unknown pass and the
  /// allowed names.
  static PassManager from_names(const std::vector<std::string>& names);

  void add(std::unique_ptr<Pass> pass) { passes_.push_back(std::move(pass)); }
  const std::vector<std::unique_ptr<Pass>>& passes() const { return passes_; }

  /// Runs every pass once, in order. For each candidate of a pass, in node order: if a node
  /// of the candidate was already consumed by an earlier rewrite of the same pass it is
  /// skipped silently; otherwise it is checked and rewritten or declined. Returns all
  /// decisions in the order taken.
  std::vector<Decision> run(Graph& graph) const;

 private:
  std::vector<std::unique_ptr<Pass>> passes_;
};

/// The --explain table, one decision per line, columns aligned:
///   fold-batchnorm   conv1 + bn1                 folded
///   fold-batchnorm   layer1.0.conv3 + bn3        declined: conv output also feeds ...
std::string format_explain(const std::vector<Decision>& decisions);

}  // namespace npu::compiler
