// fold-batchnorm: Conv -> BatchNormalization (inference form) becomes one Conv with
// W' = W * g / sqrt(v + eps) and b' = (b - mean) * g / sqrt(v + eps) + beta
// (a missing conv bias counts as 0). Reference: ONNX BatchNormalization (opset 15)
// y = (x - mean) / sqrt(var + epsilon) * scale + B, applied per output channel.
#pragma once

#include "npu/compiler/transforms/pass.hpp"

namespace npu::compiler {

class FoldBatchNorm : public GraphPass {
 public:
  std::string name() const override { return "fold-batchnorm"; }
  std::string description() const override {
    return "fold an inference BatchNormalization with constant statistics into the preceding Conv";
  }
  std::string verb() const override { return "folded"; }
  /// Every BatchNormalization whose input X is produced by a Conv.
  std::vector<Candidate> match(const Graph& graph) const override;
  /// Declines (with the reason) unless: BN has one output and training_mode 0; scale, B,
  /// mean and var are constant initializers; their length equals the Conv's output
  /// channels (W.shape[0]); Conv weights are constant; the Conv output feeds only the BN
  /// and is not a graph output.
  Legality check(const Graph& graph, const Candidate& c) const override;
  /// New tensors "<conv>.W_folded" and "<conv>.B_folded" (float32); values computed when
  /// every constant involved has data, otherwise only shapes (structural fold).
  void rewrite(Graph& graph, const Candidate& c) const override;
};

}  // namespace npu::compiler
