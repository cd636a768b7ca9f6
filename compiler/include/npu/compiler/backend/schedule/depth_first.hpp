// Depth-first (multi-layer) scheduling: consecutive layers grouped into stacks that run band
// by band (row bands of the last layer's output, back-propagated through every layer's
// receptive field), so the tensors inside a stack live only in SRAM. The `fuse-layers` pass
// marks the layers that may join a stack (layer-level legality); this planner decides the
// stacks, their band height and SRAM layout against the SRAM capacity and the time/traffic
// estimates of tiling.hpp, and the emitter writes their instructions.
// Reference: docs/depth_first.md. Literature: Alwani et al., "Fused-Layer CNN Accelerators"
// (MICRO 2016); Goetschalckx and Verhelst, "DeFiNES: Enabling Fast Exploration of the
// Depth-first Scheduling Space for DNN Accelerators" (AICAS 2023), whose overlap modes
// (recompute / cache horizontally / cache both) are the names used here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "npu/compiler/ir/graph.hpp"
#include "npu/compiler/transforms/pass.hpp"
#include "npu/compiler/backend/tiling/tiling.hpp"

namespace npu::compiler {

/// Rows [lo, hi) of a tensor (0-based, hi exclusive).
struct RowRange {
  int lo = 0;
  int hi = 0;
  int rows() const { return hi > lo ? hi - lo : 0; }
  bool empty() const { return hi <= lo; }
  bool operator==(const RowRange& o) const { return lo == o.lo && hi == o.hi; }
  bool operator!=(const RowRange& o) const { return !(*this == o); }
};

/// Input rows that output rows `out` of a Conv/Pool with geometry `g` need (the receptive
/// field along H, clipped to the image): [out.lo*s - pad_top, (out.hi-1)*s - pad_top +
/// dilation*(kh-1)] intersected with [0, h_in). Same rows as input_band(). Empty for empty `out`.
RowRange input_rows(const ConvGeom& g, RowRange out);

/// How the rows two neighbouring bands both need (the halo) are obtained (DeFiNES's overlap
/// modes; bands span the full width, so the only overlap is vertical):
///  - Recompute: each band computes every row it needs in every layer of the stack (extra
///    MACs, reported as recompute MACs);
///  - Cache: each layer computes only rows no earlier band computed; the overlap rows are
///    MOVEd from the previous band's tile (kept: tiles with overlap are double-buffered) and
///    the new rows MOVEd in after them, so the operand stays one packed [C, rows, W] tile
///    (DeFiNES "fully cached"; MOVE cycles instead of MACs).
/// The stack's DDR inputs re-load their halo rows in both modes. See docs/depth_first.md.
enum class OverlapMode { Recompute, Cache };
const char* to_string(OverlapMode m);  ///< "recompute", "cache"

/// One stack as planned and emitted (for --explain and the reports).
struct StackSummary {
  int id = 0;                       ///< 0, 1, ... in program order
  std::size_t first = 0, last = 0;  ///< indices into LoweredGraph::layers (inclusive)
  std::vector<std::string> layers;  ///< layer names, in order
  int band_rows = 0;                ///< output rows of the last layer per band
  int bands = 0;
  OverlapMode overlap = OverlapMode::Recompute;
  /// Weights and biases re-loaded by every band into two alternating slots (the next layer's
  /// load overlaps this one's compute) instead of resident for the whole stack: DDR weight
  /// bytes x bands for 2 x the largest layer's weights of SRAM instead of all of them.
  bool weights_streamed = false;
  /// One band, streamed: each layer's weights are in SRAM from this many layers before their
  /// own (their LOAD overlaps those layers' compute): 2 where the SRAM holds that, else 1.
  int weights_ahead = 1;
  std::uint64_t sram_bytes = 0;     ///< SRAM the stack uses (weights + band buffers)
  std::uint64_t weight_bytes = 0;   ///< resident weights and biases
  std::uint64_t macs = 0;           ///< MACs the stack executes, recomputed rows included
  std::uint64_t layer_macs = 0;     ///< the layers' own MACs (each output row once)
  std::uint64_t recompute_macs = 0; ///< MACs of rows a layer computes more than once (summed over layers)
  std::uint64_t ddr_bytes = 0;      ///< bytes of its LOADs and STOREs
  std::uint64_t layer_by_layer_bytes = 0;  ///< the same layers' DDR bytes with one plan_conv per layer
  double estimated_ns = 0, layer_by_layer_ns = 0;  ///< time estimates (tiling.hpp formula)
  std::vector<std::string> stored;  ///< tensors of the stack written to DDR (outside readers, graph outputs)
  /// Operands assembled on chip by MOVE instead of a DDR round trip: "T (Concat of N pieces)"
  /// or "rows of T" (a tile read by two layers that need different rows).
  std::vector<std::string> gathered;
  std::uint64_t move_elems = 0;     ///< elements those MOVEs copy, summed over bands
  /// DDR tensors several layers of the stack read, LOADed once per band for all of them:
  /// "T (N readers)".
  std::vector<std::string> shared_loads;
  /// Streamed layers whose weights load and compute in output-channel groups (docs/depth_first.md
  /// "Weights"): "L (G groups of C channels)".
  std::vector<std::string> weight_groups;
  std::string end_reason;           ///< why the stack ends where it ends
  /// Declined only: why layers a stack could have taken run one by one, when it is not that no
  /// stack of their run pays off (e.g. the fastest segmentation of the run leaves them alone).
  std::string kept_reason;
  /// Declined only: the run of stackable layers the decision was made on ("A .. Z"); `layers`
  /// are the ones of it that no stack took (a later run may stack the rest).
  std::string run;
};

struct LoweredGraph;

/// Sets LayerSpec::depth_first on every layer whose anchor node carries the fuse-layers mark
/// (npu.depth_first) in `graph` (the graph after the strategy's passes).
void mark_depth_first_layers(const Graph& graph, LoweredGraph& lowered);

/// One --explain line per stack: pass "fuse-layers", label "stack N: FIRST .. LAST (K layers)",
/// verb "stacked", and in the note the bands, overlap mode, recomputed MACs, SRAM, DDR bytes
/// against layer-by-layer, the tensors written to DDR, and why the stack ends.
std::vector<Decision> stack_decisions(const std::vector<StackSummary>& stacks);

/// One declined --explain line per run of stackable layers left layer by layer (the stack
/// planner's `declined` list): label "layers FIRST .. LAST (K layers)", reason "kept layer by
/// layer (residual plans): no prefix of this run pays off; as one stack (N bands of R rows) it
/// is estimated slower ...: X us vs Y us, DDR A B vs B B layer by layer; the run ends: ...".
std::vector<Decision> declined_stack_decisions(const std::vector<StackSummary>& declined);

}  // namespace npu::compiler
