#include "npu/compiler/transforms/pass_effect.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "npu/compiler/transforms/pass.hpp"

namespace npu::compiler {

namespace {

// What `pass`'s decisions say: rewrites (the first one's verb), declines (the first one's
// reason), or its summary.
PassEffect effect_of(const std::string& pass, const std::vector<Decision>& decisions) {
  PassEffect e;
  e.pass = pass;
  for (const Decision& d : decisions) {
    if (d.pass != pass) continue;
    if (d.outcome == DecisionOutcome::Applied) {
      if (e.applied++ == 0) e.verb = d.verb;
    } else if (d.outcome == DecisionOutcome::Declined) {
      if (e.declined++ == 0) e.first_decline = d.label + ": " + d.reason;
    } else if (e.summary.empty()) {
      e.summary = d.verb;
    }
  }
  if (e.verb.empty())
    if (const auto graph_pass = make_pass(pass)) e.verb = graph_pass->verb();  // "fused 0", not "applied 0"
  return e;
}

}  // namespace

std::vector<PassEffect> pass_effects(const std::vector<Decision>& decisions, const Strategy& strategy) {
  std::vector<PassEffect> effects;
  for (const std::string& pass : strategy.passes) effects.push_back(effect_of(pass, decisions));
  // fuse-layers brings the program pass keep-resident (program_passes()), which keeps the
  // stacks' DDR intermediates in SRAM: much of depth-first's saving, said with the rest.
  const bool resident = std::any_of(decisions.begin(), decisions.end(),
                                    [](const Decision& d) { return d.pass == "keep-resident"; });
  if (strategy.uses("fuse-layers") && resident) effects.push_back(effect_of("keep-resident", decisions));
  return effects;
}

std::string format_pass_effects(const std::vector<PassEffect>& effects, bool with_reasons) {
  if (effects.empty()) return "no passes";
  std::string line, idle;  // idle: passes that found no candidate, named together at the end
  for (const PassEffect& e : effects) {
    if (e.applied == 0 && e.declined == 0) {
      const bool no_candidate = e.summary.empty() || e.summary == "no candidate in the graph";
      if (no_candidate) {
        idle += (idle.empty() ? "" : ", ") + e.pass;
        continue;
      }
      line += (line.empty() ? "" : "; ") + e.pass + ": " + e.summary;
      continue;
    }
    line += fmt::format("{}{} {} {}", line.empty() ? "" : "; ", e.pass, e.verb.empty() ? "applied" : e.verb, e.applied);
    if (e.declined > 0) {
      line += fmt::format(", declined {}", e.declined);
      if (with_reasons) line += " (first: " + e.first_decline + ")";
    }
  }
  if (!idle.empty()) line += (line.empty() ? "" : "; ") + std::string("no candidate: ") + idle;
  return line;
}

}  // namespace npu::compiler
