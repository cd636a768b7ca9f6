// fuse-swiglu: the dual-GEMM SwiGLU. After fuse-gemm-epilogue a GLU is two weight GEMMs: the gate
// (its SiLU fused, output M x N) and the up projection whose epilogue multiplies by the gate's
// output (ISA mul=). The gate output is written to DDR once and read back once. This pass merges
// the gate into the up GEMM (fused_attr::kSwiglu, the gate weights as input 8): per output tile
// the code generator runs the gate GEMM (SiLU epilogue) into an SRAM buffer and then the up GEMM
// with that buffer as its mul= operand, both reading the same A tile, loaded once. Saved:
// 2 x M x N elements of DDR traffic per fusion, plus A's second read. Reference: docs/compiler.md
// "fuse-swiglu".
#pragma once

#include "npu/compiler/transforms/pass.hpp"

namespace npu::compiler {

class FuseSwiglu : public GraphPass {
 public:
  std::string name() const override { return "fuse-swiglu"; }
  std::string description() const override {
    return "merge a SwiGLU's gate GEMM (SiLU) into the up GEMM that multiplies by it: one dual GEMM, the gate never "
           "leaves SRAM";
  }
  /// Every weight GEMM (MatMul by a constant 2-D B, or Gemm) whose epilogue multiplies by
  /// (fuse-gemm-epilogue's kResidualMul) the output of another weight GEMM with a SiLU epilogue.
  std::vector<Candidate> match(const Graph& graph) const override;
  /// Legal when the gate output is read only by the up GEMM and is no graph output; both GEMMs
  /// read the same A, have the same op, weight shape, output shape and transB/alpha, and the same
  /// norm prologue (or none); the gate has no bias, residual or rotary epilogue and the up GEMM no
  /// rotary epilogue; neither output is quantised (int8 has no rule for it). Whether a dual tile
  /// fits the SRAM is decided at lowering (a fallback to the two GEMMs is reported there).
  Legality check(const Graph& graph, const Candidate& c) const override;
  void rewrite(Graph& graph, const Candidate& c) const override;
};

}  // namespace npu::compiler
