// fuse-attention: scaled dot-product attention, softmax(Q K^T * scale + mask) V, as written by
// torch exports (MatMul, Div or Mul by a constant, Add of a constant mask, Softmax over the
// last axis, MatMul), becomes one Attention node (fused_attr::kAttention) that the back end
// runs FlashAttention-style: a block of query rows stays in SRAM while the keys and values
// stream in blocks, with an online softmax, so the Sq x Sk scores never reach DDR (Dao et al.
// 2022, "FlashAttention", Algorithm 1). Reference: docs/compiler.md "fuse-attention".
#pragma once

#include "npu/compiler/transforms/pass.hpp"

namespace npu::compiler {

class FuseAttention : public GraphPass {
 public:
  std::string name() const override { return "fuse-attention"; }
  std::string description() const override {
    return "fuse Q K^T, scale, mask, Softmax and P V into one FlashAttention-style attention (scores stay on chip)";
  }
  /// Every Softmax whose input comes from a MatMul (through an optional constant scale and an
  /// optional Add) and whose output is read by a MatMul as its A operand.
  std::vector<Candidate> match(const Graph& graph) const override;
  /// Legal when the Softmax is over the last axis, Q, K^T and V have the same batch axes (no
  /// broadcast), the scale is a constant scalar, the mask a constant the same for every batch
  /// and head, and every intermediate (scores, scaled, masked, probabilities) has one reader
  /// and is no graph output.
  Legality check(const Graph& graph, const Candidate& c) const override;
  void rewrite(Graph& graph, const Candidate& c) const override;
};

}  // namespace npu::compiler
