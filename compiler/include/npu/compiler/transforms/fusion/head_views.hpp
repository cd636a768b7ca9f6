// "Views, not copies" for fuse-attention: torch exports split a projection's rows into heads
// as Reshape [B, S, H, n] -> Transpose(perm 0,2,1,3) -> [B, H, S, n] (Q, K, V) and merge them
// back after P V with Transpose(perm 0,2,1,3) -> Reshape. Each Transpose is a layout layer that
// reads and writes the whole tensor. The fused attention instead reads Q's and V's rows and
// writes O's rows where they lie in the [B, S, H, n] tensor (strided DMA: rows H n elements
// apart), and absorbs the Transposes (fused_attr::kQueryView, kValueView, kOutView).
// docs/compiler.md "fuse-attention".
#pragma once

#include <string>
#include <vector>

#include "npu/compiler/ir/graph.hpp"

namespace npu::compiler {

/// The head Transposes an attention absorbs: node indices, -1 where none.
struct HeadViews {
  long q = -1;  ///< Transpose producing Q [B, H, Sq, d] from X [B, Sq, H, d]
  long v = -1;  ///< Transpose producing V [B, Hkv, Sk, dv] from X [B, Sk, Hkv, dv]
  long o = -1;  ///< Transpose reading O [B, H, Sq, dv] into [B, Sq, H, dv]
  std::vector<std::string> skipped;  ///< why a head Transpose next to the attention stays a layer
};

/// The head split Transposes producing `q` and `v` and the merge Transpose reading `o` that an
/// attention may absorb: perm (0,2,1,3), 4-D with static shapes, on the NPU, and the
/// transposed tensor (q, v, or o) read by the attention (or the Transpose) alone and no graph
/// output. A Transpose adjacent to the attention but not absorbable is named in `skipped`.
HeadViews find_head_views(const Graph& graph, const std::string& q, const std::string& v, const std::string& o);

/// Rewires the Attention node `attention` through the views: its inputs 0 and 2 become the
/// Transposes' inputs, its output the merge Transpose's output; sets the view attributes,
/// erases the transposed tensors and appends the Transposes' names to `absorbed` (for
/// merge_nodes). Call before merge_nodes, with `hv` found on the graph before the rewrite.
void take_head_views(Graph& graph, Node& attention, const HeadViews& hv, std::vector<std::string>& absorbed);

/// The --explain note: which views were taken and which Transposes stay layers, or "".
std::string head_views_note(const Graph& graph, const HeadViews& hv);

}  // namespace npu::compiler
