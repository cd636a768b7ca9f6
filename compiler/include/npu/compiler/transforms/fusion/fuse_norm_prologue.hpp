// fuse-norm-prologue: an RMSNormalization or LayerNormalization over the last axis whose only
// readers are weight GEMMs (MatMul by a constant 2-D matrix, or Gemm) runs as the prologue of
// each of them: every row tile of the GEMM's input A holds whole rows of K elements (the GEMM
// tile loop never splits K), so the vector unit normalises the tile in SRAM right after its
// LOAD (isa ACT rms_norm / layer_norm, in place, gamma/beta resident) and the array reads the
// normalised rows. The norm's output [M, K] is never written to DDR and the norm never reads
// its input: 2 x M x K elements saved per norm, less (readers - 1) x the gamma/beta bytes
// (each GEMM loads its own copy). Pre-norm transformers: the Q/K/V projections after
// input_layernorm, the gate/up (or fc) projections after the MLP's norm, the LM head after
// the final norm. Reference: docs/compiler.md "fuse-norm-prologue".
#pragma once

#include "npu/compiler/transforms/pass.hpp"

namespace npu::compiler {

class FuseNormPrologue : public GraphPass {
 public:
  std::string name() const override { return "fuse-norm-prologue"; }
  std::string description() const override {
    return "run an RMSNormalization / LayerNormalization as the prologue of the weight GEMMs that read it";
  }
  /// Every RMSNormalization / LayerNormalization node with at least one weight-GEMM reader;
  /// the anchor is its first reader, the label names every reader.
  std::vector<Candidate> match(const Graph& graph) const override;
  /// Legal when the norm is over the last axis with constant gamma (and, for LayerNormalization,
  /// a constant beta), has one output, reads no fused residual, its output is no graph output
  /// and is not quantised (int8 has no rule for a norm), and every reader is a weight GEMM that
  /// reads it as A only, has no prologue yet and (Gemm) does not transpose A.
  Legality check(const Graph& graph, const Candidate& c) const override;
  /// Each reader reads the norm's input as A, with inputs A, B, bias or "", residual or "",
  /// gamma, beta or "" and the fused_attr::kPrologue / kPrologueEps attributes; the norm merges
  /// into the anchor.
  void rewrite(Graph& graph, const Candidate& c) const override;
};

}  // namespace npu::compiler
