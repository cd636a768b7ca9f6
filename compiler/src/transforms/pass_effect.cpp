#include "npu/compiler/transforms/pass_effect.hpp"

#include <fmt/format.h>

#include "npu/compiler/transforms/pass.hpp"

namespace npu::compiler {

std::vector<PassEffect> pass_effects(const std::vector<Decision>& decisions, const Strategy& strategy) {
  std::vector<PassEffect> effects;
  for (const std::string& pass : strategy.passes) {
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
    effects.push_back(std::move(e));
  }
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
