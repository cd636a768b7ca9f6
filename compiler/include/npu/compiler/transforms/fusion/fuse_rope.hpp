// fuse-rope: the rotary position embedding (Su et al. 2021, "RoFormer"), as Hugging Face Llama
// writes it and torch exports it, out = x * cos + rotate_half(x) * sin with
// rotate_half(x) = Concat(-x[..., d/2:], x[..., :d/2]) over the last axis (Slice, Slice, Neg,
// Concat, Mul, Mul, Add: six vector passes over Q or K), becomes the epilogue of the Q/K
// projection GEMM that produces x: after each output tile is computed, the vector unit rotates
// it in SRAM (ISA ACT rope, in place, its rows' cos/sin loaded per tile from a [S, 2d] fp32
// table) before the STORE. x is the GEMM output itself ([..., S, d]) or its head split,
// Reshape [B, S, H d] -> [B, S, H, d] then Transpose(0, 2, 1, 3) -> [B, H, S, d]; in the second
// case the views stay and now carry the rotated values (the rotation is element-wise within a
// head, so it commutes with them). Reference: docs/compiler.md "fuse-rope".
#pragma once

#include "npu/compiler/transforms/pass.hpp"

namespace npu::compiler {

class FuseRope : public GraphPass {
 public:
  std::string name() const override { return "fuse-rope"; }
  std::string description() const override {
    return "run a rotary position embedding (x cos + rotate_half(x) sin) as the epilogue of the Q/K GEMM";
  }
  /// Every Add(Mul(x, c), Mul(Concat(Neg(Slice(x)), Slice(x)), s)) (either operand order);
  /// the anchor is the GEMM producing x when there is one, else the Add.
  std::vector<Candidate> match(const Graph& graph) const override;
  /// Legal when the two Slices split x's last axis d (even) exactly at d/2 (the high half
  /// negated first), the Concat is on the last axis, c and s are constant tables broadcasting to
  /// [S, d] over x's other axes (S: x's positions axis), every intermediate has no other
  /// reader and is no graph output, no tensor is quantised (int8 has no rule), and x is a
  /// weight GEMM's output (directly or through the head-split Reshape + Transpose, each read
  /// by the next alone) without a rotary epilogue yet.
  Legality check(const Graph& graph, const Candidate& c) const override;
  /// Declined when the fused GEMM's minimal tile certainly exceeds sram.capacity: an output
  /// tile holds whole heads, so its weights alone are d x K elements of the array's dtype (the
  /// tiler keeps weights in it), two slots when N > d (the next tile's weights load during
  /// this one: tiling.cpp conv_sram_layout), plus at least one input row of K elements; in
  /// bytes, (N > d ? 2 : 1) x d x K x e + K x e. llama-2-7b on a 1 MiB SRAM at int8:
  /// 2 x 128 x 4096 + 4096 = 1,052,672 B. Without the fusion one output column suffices.
  Legality fits(const Graph& graph, const Candidate& c, const HwConfig& hw) const override;
  /// The GEMM takes c and s as inputs 6 and 7 with fused_attr::kRope = d and kRopePositions = S
  /// and writes the rotated values; the last view (or the GEMM) writes the Add's output; the
  /// seven rotary nodes join the GEMM's npu.covers.
  void rewrite(Graph& graph, const Candidate& c) const override;
};

}  // namespace npu::compiler
