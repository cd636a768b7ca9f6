// What each pass of a strategy did, counted from its --explain decisions: the facts behind the
// experiment summary's one line per strategy ("conv-act changed nothing: fuse-activation
// declined 49 of 49, e.g. BatchNormalization between conv and Relu"). docs/experiment.md
// "Why a strategy changed nothing".
#pragma once

#include <string>
#include <vector>

#include "npu/compiler/ir/decision.hpp"
#include "npu/compiler/transforms/strategy.hpp"

namespace npu::compiler {

/// One pass of a strategy: how many of its candidates it rewrote and declined.
struct PassEffect {
  std::string pass;             ///< e.g. "fuse-activation"
  int applied = 0;              ///< candidates rewritten
  int declined = 0;             ///< candidates left as they were
  /// The first applied decision's verb ("folded", "fused", "stacked"); with none applied, the
  /// graph pass's own verb (GraphPass::verb), "" for another kind.
  std::string verb;
  std::string first_decline;    ///< "LABEL: REASON" of the first declined candidate; "" if none
  std::string summary;          ///< a Summary decision's text ("no candidate in the graph"); "" if none
};

/// The effect of each of `strategy.passes`, in strategy order, from `decisions` (a compile's
/// CompileResult::decisions, as --explain prints them), then, for a strategy with fuse-layers
/// whose compile made keep-resident decisions, that program pass's (it keeps the stacks' DDR
/// intermediates in SRAM). A pass with no decision at all gets a PassEffect with every count 0
/// and an empty summary.
std::vector<PassEffect> pass_effects(const std::vector<Decision>& decisions, const Strategy& strategy);

/// One line for the effects, passes separated by "; " in strategy order, then the passes
/// that found no candidate named together, e.g.
///   "fold-batchnorm folded 53; fuse-activation fused 0, declined 49 (first: conv1 -> relu:
///    BatchNormalization bn1 between conv and Relu ...); no candidate: fuse-bias"
/// A pass with another summary and no candidate prints "PASS: SUMMARY"; "no passes" for none.
/// `with_reasons`: false leaves out the first decline's reason.
std::string format_pass_effects(const std::vector<PassEffect>& effects, bool with_reasons);

}  // namespace npu::compiler
