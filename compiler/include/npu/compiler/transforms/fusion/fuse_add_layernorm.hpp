// fuse-add-layernorm: a residual Add whose only reader is a LayerNormalization over the last
// axis (post-norm transformer blocks: LayerNorm(x + Sublayer(x)), Vaswani et al. 2017) runs
// as one vector-unit pass: the LayerNorm reads both summands (isa ACT res=), so x + y is
// never written to DDR and read back.
#pragma once

#include "npu/compiler/transforms/pass.hpp"

namespace npu::compiler {

class FuseAddLayerNorm : public GraphPass {
 public:
  std::string name() const override { return "fuse-add-layernorm"; }
  std::string description() const override { return "fuse a residual Add into the LayerNormalization that reads it"; }
  /// Every Add of two equal-shape tensors whose output a LayerNormalization reads.
  std::vector<Candidate> match(const Graph& graph) const override;
  /// Legal when the Add output feeds only the LayerNormalization, is no graph output, and
  /// the LayerNormalization reads no residual yet.
  Legality check(const Graph& graph, const Candidate& c) const override;
  void rewrite(Graph& graph, const Candidate& c) const override;
};

}  // namespace npu::compiler
