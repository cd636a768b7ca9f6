// What a pass decided: one record per candidate a pass matched (applied or declined, with the
// reason), or one summary per pass for what it did to the whole graph or program. Kept with
// the IR because import-time passes record theirs on the Graph (Graph::import_decisions)
// before any compile; `npu compile --explain` prints them all (transforms/pass_manager.hpp).
#pragma once

#include <string>
#include <vector>

namespace npu::compiler {

/// What a pass decided about one candidate, or (Summary) what it did as a whole.
///   Applied:  the candidate was rewritten (verb says how).
///   Declined: the candidate was left as it is (reason says why).
///   Summary:  one line for a pass that ran over the whole graph or program: what it changed
///             in all ("merged 3 Pad node(s)") or that it found nothing to change. Never a
///             rewrite of its own: counts of applied rewrites ignore it.
enum class DecisionOutcome { Applied, Declined, Summary };

struct Decision {
  std::string pass;                ///< pass name, e.g. "fold-batchnorm"
  std::vector<std::string> nodes;  ///< nodes involved, anchor (Conv/Gemm) first when there is one
  std::string label;               ///< human form of the match, e.g. "conv1 + bn1", "conv1 -> relu1"
  DecisionOutcome outcome = DecisionOutcome::Declined;
  std::string verb;                ///< past tense when applied: "folded" or "fused"; a summary's text
  std::string reason;              ///< why it declined; for an applied rewrite an optional note
};

/// A Summary decision of `pass` over `label` (the model): `text` is what the pass did.
inline Decision summary_decision(std::string pass, std::string label, std::string text) {
  Decision d;
  d.pass = std::move(pass);
  d.label = std::move(label);
  d.outcome = DecisionOutcome::Summary;
  d.verb = std::move(text);
  return d;
}

}  // namespace npu::compiler
