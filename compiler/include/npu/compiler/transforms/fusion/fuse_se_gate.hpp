// fuse-se-gate: the squeeze-and-excitation gate's Mul (x [N,C,H,W] times a per-channel gate
// s [N,C,1,1] computed at run time; MobileNetV3, EfficientNet, RegNetY) moves into the Conv
// (or Gemm/MatMul) that reads its result: the array scales input channel c by s[c] as the
// input enters it (isa Epilogue in_scale), so x * s is never written to DDR and read back.
// Hu et al., "Squeeze-and-Excitation Networks", CVPR 2018 (the gate); the scale-on-input
// placement is the consumer-side fusion practitioners use because the gate depends on all
// of x (global pooling), so it cannot go into x's producer.
#pragma once

#include "npu/compiler/transforms/pass.hpp"

namespace npu::compiler {

class FuseSeGate : public GraphPass {
 public:
  std::string name() const override { return "fuse-se-gate"; }
  std::string description() const override {
    return "move a per-channel gate Mul (squeeze-and-excitation) into the consuming Conv's input scaling";
  }
  /// Every Mul of a 4-D tensor by a per-channel tensor [1,C,1,1] (either order) whose
  /// output is read by a Conv as its input.
  std::vector<Candidate> match(const Graph& graph) const override;
  /// Legal when the Mul output feeds only that Conv as its data input, is no graph output,
  /// the gate is per channel of a batch-1 tensor, and the Conv has no input scale yet.
  Legality check(const Graph& graph, const Candidate& c) const override;
  void rewrite(Graph& graph, const Candidate& c) const override;
};

}  // namespace npu::compiler
