// The KV-cache append of an LLM decode step: present = Concat(past, new, axis=2), where past
// is a graph input and present a graph output. Recognised here, in the IR, so that the import
// pass that reports it (recognise-kv-cache) and the lowering that places past inside present
// (backend/lowering) apply one rule, also to graphs built without the import passes (a zoo).
// Reference: docs/compiler.md "KV cache".
#pragma once

#include <cstdint>
#include <string>

#include "npu/compiler/ir/graph.hpp"

namespace npu::compiler {

/// One recognised append. Shapes: past [B, H, T-N, D], fresh [B, H, N, D], present [B, H, T, D]
/// (H = KV heads, D = head dim; N = 1 in a decode step).
struct KvAppend {
  std::string node;     ///< the Concat
  std::string past;     ///< its input 0: a graph input read by this Concat only
  std::string fresh;    ///< its input 1: the new token's rows, computed in the step
  std::string present;  ///< its output: a graph output
  std::uint64_t groups = 0;     ///< B x H: (batch, head) pairs, each a contiguous [T, D] block of present
  std::uint64_t past_rows = 0;  ///< T - N
  std::uint64_t new_rows = 0;   ///< N
  std::uint64_t row_elems = 0;  ///< D
};

/// Why `node` is not a KV-cache append, or "" if it is (then `*out`, if given, is filled).
/// An append is a Concat of exactly two rank-4 inputs along axis 2 (or -2) whose input 0 is a
/// non-constant graph input that no other node reads and that is no graph output, whose input 1
/// is computed in the graph, whose output is a graph output, and whose shapes agree: past
/// [B,H,P,D], fresh [B,H,N,D], present [B,H,P+N,D], all dims >= 1. Graph names do not matter.
/// Anything else is a normal Concat (the reason says which rule failed). Throws nothing.
std::string kv_append_problem(const Graph& graph, const Node& node, KvAppend* out = nullptr);

/// True if `node` is a Concat whose input 0 is a graph input: a candidate the pass reports on.
bool kv_append_candidate(const Graph& graph, const Node& node);

}  // namespace npu::compiler
