// fuse-layers: marks the producer -> consumer links between convolutions (their fused
// epilogues included: BN folded, activation, residual Add), max/average pooling and
// element-wise Add/Mul of two same-shape tensors (YOLOv5's residual Add after a SiLU) that the
// depth-first scheduler may run as one stack, band by band, with the linking tensor kept in
// SRAM. The marks (node attribute npu.depth_first) are layer-level legality only; which marked
// layers form stacks, their band height and where each stack ends is decided against the SRAM
// capacity when code is generated (depth_first.hpp; `--explain` prints one line per stack).
// Literature: Alwani et al., "Fused-Layer CNN Accelerators", MICRO 2016; Goetschalckx and
// Verhelst, DeFiNES, AICAS 2023.
#pragma once

#include "npu/compiler/transforms/pass.hpp"

namespace npu::compiler {

namespace fused_attr {
/// int 1: the node may run in a depth-first stack (set by fuse-layers).
inline constexpr const char* kDepthFirst = "npu.depth_first";
}  // namespace fused_attr

class FuseLayers : public GraphPass {
 public:
  std::string name() const override { return "fuse-layers"; }
  std::string description() const override {
    return "link consecutive convolutions and poolings for depth-first execution (intermediates stay in SRAM)";
  }
  std::string verb() const override { return "linked"; }
  /// Every Conv, MaxPool, AveragePool, or Add/Mul of two tensors, linked to another one: an
  /// input (data, fused skip, either summand) written by one, or its output read by one. Candidate {node}, labelled with the
  /// link ("producer -> node", or "node (feeds consumer)" for a node no tileable op feeds).
  std::vector<Candidate> match(const Graph& graph) const override;
  /// Declines a node that is not a 2-D Conv/pooling of one image (rank-4 tensors, batch 1),
  /// an Add/Mul that broadcasts, or a conv that scales its input channels (fuse-se-gate: the gate needs the whole input
  /// first).
  Legality check(const Graph& graph, const Candidate& c) const override;
  /// Sets npu.depth_first = 1 on the node.
  void rewrite(Graph& graph, const Candidate& c) const override;
};

}  // namespace npu::compiler
