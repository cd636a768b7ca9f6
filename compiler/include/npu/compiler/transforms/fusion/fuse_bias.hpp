// fuse-bias: MatMul with a constant weight matrix followed by Add of a constant bias vector
// (nn.Linear as torch exports it for 3-D inputs: MatMul + Add) becomes one MatMul whose GEMM
// epilogue adds the bias, so the MatMul output never goes to DDR and comes back for the Add.
// Together with fuse-activation (which accepts MatMul producers) this is the practitioners'
// MatMul + bias + GELU fusion of transformer MLPs.
#pragma once

#include "npu/compiler/transforms/pass.hpp"

namespace npu::compiler {

class FuseBias : public GraphPass {
 public:
  std::string name() const override { return "fuse-bias"; }
  std::string description() const override { return "fuse a constant bias Add into the MatMul GEMM epilogue"; }
  /// Every Add one of whose inputs is produced by a MatMul with a constant 2-D B and the
  /// other a constant with N elements (shape [N] or [1, ..., 1, N]).
  std::vector<Candidate> match(const Graph& graph) const override;
  /// Legal when the MatMul output feeds only the Add, is no graph output, and the MatMul has
  /// no bias or activation fused yet.
  Legality check(const Graph& graph, const Candidate& c) const override;
  void rewrite(Graph& graph, const Candidate& c) const override;
};

}  // namespace npu::compiler
