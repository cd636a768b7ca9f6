// fuse-residual: Conv (+ folded BN) -> Add(skip) [-> Relu] becomes one Conv whose epilogue
// reads the skip tensor (input 3) and adds it after bias, before the activation.
#pragma once

#include "npu/compiler/transforms/pass.hpp"

namespace npu::compiler {

class FuseResidual : public GraphPass {
 public:
  std::string name() const override { return "fuse-residual"; }
  std::string description() const override {
    return "fuse Conv + Add(skip) [+ Relu] into one Conv whose epilogue adds the skip tensor";
  }
  /// Every Add with two non-constant inputs at least one of which a Conv produces. When both
  /// are Conv outputs the one produced later is the anchor (the other is then already
  /// computed) unless only the earlier one is legal.
  std::vector<Candidate> match(const Graph& graph) const override;
  /// Legal when the Conv output feeds only the Add and is not a graph output, the Conv has
  /// no activation or residual yet (the epilogue adds the residual before the activation),
  /// and the two Add inputs have exactly the same shape (no broadcasting). A Relu is
  /// included when it is the Add output's only consumer.
  Legality check(const Graph& graph, const Candidate& c) const override;
  void rewrite(Graph& graph, const Candidate& c) const override;
};

}  // namespace npu::compiler
