// Where fusing more made a run slower: a strategy whose passes include all of another's (say
// `residual` against `conv-bn-act`) that simulated slower than it on the same model and hw.
// Fusion is legal and usually faster, but not always: at a small SRAM a fused epilogue's
// operand (a residual tile, a gate) takes SRAM from the layer's tiles, or the SRAM-plan ladder
// chose another plan. The summary names such a run, with the per-layer figures that show where
// the time went, instead of leaving a surprising number unexplained. docs/experiment.md
// "When fusing more is slower".
#pragma once

#include <string>
#include <vector>

#include "npu/sim/experiment/experiment.hpp"

namespace npu::sim {

/// A run is "slower" when its latency exceeds the other's by more than this fraction.
inline constexpr double kFusionRegressionTolerance = 0.005;

/// The strategy passes of a run: the pass names of its pass effects (run_summary.json
/// "pass_effects"; empty for `none`).
std::vector<std::string> strategy_passes(const RunSummary& r);

/// The lines under a summary table, one per successful run B that has a successful run A of
/// the same model and hw (names as stem_of gives them) whose strategy passes are a proper
/// subset of B's while B's latency exceeds A's by more than kFusionRegressionTolerance
/// (A: the fastest such run). Each line reads
///   "slower: MODEL HW B X ms is +P % against A Y ms, though its passes include A's: the
///    layers both ran took +D ms (most: L1 +d1 ms, L2 +d2 ms), the K layers B fused away had
///    taken Z ms[; B's program was compiled for a S1-byte SRAM plan, A's for S2]"
/// with per-layer exclusive times from each run's run.json ("layers": name, exclusive_cycles;
/// ms = cycles x latency_ms / cycles of the run). A run.json that cannot be read leaves the
/// per-layer part out. Later runs with the first one's cycles and DDR bytes against the same A
/// join its line ("; transformer, depth-first ran the same cycles and bytes"). "" when no run
/// is slower. Deterministic: runs in the given order.
std::string fusion_regression_lines(const std::vector<const RunSummary*>& runs);

}  // namespace npu::sim
