// fuse-activation: Conv/Gemm followed by an activation becomes one Conv/Gemm whose
// epilogue applies the activation as the array output drains (no DDR round trip).
// Activations: Relu, Clip (ReLU6 etc.; min/max from attributes, opset < 11, or constant
// inputs, opset >= 11), LeakyRelu, Sigmoid, HardSigmoid, HardSwish, and SiLU matched as
// Sigmoid(x) and Mul(x, Sigmoid(x)) reading the same x.
#pragma once

#include "npu/compiler/transforms/pass.hpp"

namespace npu::compiler {

class FuseActivation : public GraphPass {
 public:
  std::string name() const override { return "fuse-activation"; }
  std::string description() const override {
    return "fuse Relu/Clip/LeakyRelu/Sigmoid/SiLU/HardSigmoid/HardSwish into the Conv/Gemm epilogue";
  }
  /// Every activation (or SiLU pair) whose input is produced by a Conv or Gemm, or by a
  /// BatchNormalization or Add sitting between a Conv and the activation (those are
  /// declined, so --explain says why nothing was fused).
  std::vector<Candidate> match(const Graph& graph) const override;
  /// Legal when the producer is a Conv/Gemm without an activation yet, its output feeds
  /// only the activation (SiLU: exactly the Sigmoid and the Mul) and is not a graph output,
  /// and Clip bounds are constants.
  Legality check(const Graph& graph, const Candidate& c) const override;
  void rewrite(Graph& graph, const Candidate& c) const override;
};

}  // namespace npu::compiler
