// fuse-gemm-epilogue: a weight GEMM (MatMul by a constant 2-D matrix, or Gemm) followed by an
// element-wise Add or Mul with a computed tensor of the same shape becomes one GEMM whose
// epilogue reads that tensor and adds it (a transformer's residual connection after the output
// or down projection) or multiplies by it (a GLU: SwiGLU's silu(gate(x)) * up(x), the gate's SiLU
// already fused into the gate GEMM by fuse-activation). The GEMM's output and the Add/Mul's read
// of it never reach DDR: 2 x M x N elements saved per fusion. Reference: docs/compiler.md
// "fuse-gemm-epilogue".
#pragma once

#include "npu/compiler/transforms/pass.hpp"

namespace npu::compiler {

class FuseGemmEpilogue : public GraphPass {
 public:
  std::string name() const override { return "fuse-gemm-epilogue"; }
  std::string description() const override {
    return "fuse a weight GEMM + Add (residual) or Mul (GLU gate) of a same-shape tensor into the GEMM's epilogue";
  }
  /// Every Add or Mul of two computed tensors at least one of which a weight GEMM (MatMul with
  /// a constant 2-D B, or Gemm) produces. When both are, the one with no activation is the
  /// anchor (a GLU's up projection: the epilogue multiplies before its activation), else the one
  /// produced later.
  std::vector<Candidate> match(const Graph& graph) const override;
  /// Legal when the GEMM output feeds only the Add/Mul and is no graph output, the GEMM has no
  /// activation and no residual yet (the epilogue applies the residual before the activation),
  /// it is not quantised (int8 has no rule for an epilogue residual), and both operands have
  /// exactly the same shape (no broadcasting).
  Legality check(const Graph& graph, const Candidate& c) const override;
  void rewrite(Graph& graph, const Candidate& c) const override;
};

}  // namespace npu::compiler
