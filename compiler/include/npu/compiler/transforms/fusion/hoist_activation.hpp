// hoist-activation: an element-wise activation that follows a chain of pure layout ops
// (Reshape, Transpose, Flatten, Squeeze, Unsqueeze) after a Conv/Gemm/MatMul moves before the
// chain, onto the producer's output, so fuse-activation can make it the producer's epilogue.
// An element-wise function commutes with any op that only moves elements: act(layout(x)) =
// layout(act(x)), value for value, so outputs are unchanged (fp32 bit for bit). YOLOv5's
// detection head applies its Sigmoid after Reshape + Transpose of each scale's 1x1 conv
// output; fused, the Sigmoid's own read and write of that tensor disappear.
#pragma once

#include "npu/compiler/transforms/pass.hpp"

namespace npu::compiler {

class HoistActivation : public GraphPass {
 public:
  std::string name() const override { return "hoist-activation"; }
  std::string description() const override {
    return "move an activation above the Reshape/Transpose chain between it and a Conv/Gemm, so it can fuse";
  }
  std::string verb() const override { return "hoisted"; }
  /// Every Relu, Clip, LeakyRelu, Sigmoid (not the Sigmoid of a SiLU pair), HardSigmoid,
  /// HardSwish or Gelu whose input comes from a Conv, Gemm or MatMul through one or more
  /// Reshape, Transpose, Flatten, Squeeze or Unsqueeze nodes. Candidate {activation, the
  /// layout nodes from the activation back}, labelled "producer -> layout ... -> activation".
  std::vector<Candidate> match(const Graph& graph) const override;
  /// Legal when every tensor from the producer's output to the activation's input is read by
  /// the next node of the chain only and is no graph output, and none carries quantisation
  /// parameters (a quantised model keeps its tensors' grids where they are).
  Legality check(const Graph& graph, const Candidate& c) const override;
  /// Producer -> t0 -> L1 ... Lk -> tk -> act -> ta becomes producer -> t0 -> act -> a0 -> L1
  /// ... Lk -> ta: the activation reads t0 and writes a new tensor a0 shaped like t0, L1 reads
  /// a0, Lk writes ta (tk is dropped), and the activation moves to just after the producer.
  void rewrite(Graph& graph, const Candidate& c) const override;
};

}  // namespace npu::compiler
