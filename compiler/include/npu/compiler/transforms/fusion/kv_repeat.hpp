// Grouped-query attention's head repeat (fuse-attention): the K or V heads each repeated g
// times for their group of query heads, written as torch exports HF Llama's `repeat_kv`,
//   X [B, Hkv, S, d] -> Unsqueeze(axes [2]) -> Expand [B, Hkv, g, S, d] -> Reshape [B, Hkv g, S, d],
// so query head h reads KV head h / g. fuse-attention reads X itself instead (fused_attr::kKvGroup)
// and absorbs the three nodes: the expanded copy is never written. docs/compiler.md "fuse-attention".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "npu/compiler/ir/graph.hpp"

namespace npu::compiler {

/// What produces an attention's K or V: a proven head repeat, or not one.
struct KvRepeat {
  std::string source;              ///< X [B, Hkv, S, d], the un-repeated heads ("" when no repeat)
  std::int64_t group = 1;          ///< g = H / Hkv
  std::vector<std::string> nodes;  ///< the Unsqueeze (or unit-axis Reshape), Expand and Reshape
  /// Non-empty when `t` is a Reshape of an Expand that is not proven a head repeat the attention
  /// may read through (why not); the attention then reads the expanded tensor.
  std::string problem;
  bool found() const { return !source.empty() && problem.empty(); }
};

/// The head repeat that produces tensor `t` [B, H, S, d], checked by value: the unit axis is
/// inserted at 2, the Expand's shape (a constant) broadcasts [B, Hkv, 1, S, d] to
/// [B, Hkv, g, S, d] and the Reshape's target (a constant; 0 copies, one -1 infers) is
/// [B, Hkv g, S, d]. Each intermediate must have one reader, be no graph output and run on the
/// NPU. Returns an empty KvRepeat (no source, no problem) when `t` is no Reshape of an Expand.
KvRepeat find_kv_repeat(const Graph& graph, const std::string& t);

}  // namespace npu::compiler
