#include "npu/sim/experiment/strategy_effects.hpp"

#include <fmt/format.h>

namespace npu::sim {

bool same_as_baseline(const RunSummary& r, const RunSummary& baseline) {
  return r.cycles == baseline.cycles && r.ddr_read_mb == baseline.ddr_read_mb &&
         r.ddr_write_mb == baseline.ddr_write_mb;
}

namespace {

// The text after a run's names: its pass effects, with the reasons when it changed nothing; for a
// strategy file that lists no passes, that (new-user finding: such a run got no line); "" for
// `none` itself.
std::string effect_text(const RunSummary& r, const RunSummary* baseline) {
  const bool nothing = baseline && baseline != &r && same_as_baseline(r, *baseline);
  if (r.pass_effects.empty()) {
    if (baseline == &r || strategy_label(r.job.strategy) == "none") return "";
    return nothing ? "changed nothing against none: its strategy lists no passes" : "its strategy lists no passes";
  }
  return (nothing ? "changed nothing against none: " : "") + compiler::format_pass_effects(r.pass_effects, nothing);
}

}  // namespace

std::string strategy_effect_lines(const std::vector<RunSummary>& runs,
                                  const std::function<const RunSummary*(const RunSummary&)>& baseline_of) {
  std::string lines;
  for (const RunSummary& r : runs) {
    if (!r.ok) continue;
    const std::string text = effect_text(r, baseline_of(r));
    if (text.empty()) continue;  // `none`
    lines += fmt::format("{} {} {}: {}\n", stem_of(r.job.model), stem_of(r.job.hw), strategy_label(r.job.strategy),
                         text);
  }
  if (lines.empty()) return "";
  return "what each strategy's passes did (every decision: npu compile --explain):\n" + lines;
}

std::vector<compiler::PassEffect> read_pass_effects(const nlohmann::json& run_summary) {
  std::vector<compiler::PassEffect> effects;
  if (!run_summary.contains("pass_effects")) return effects;
  for (const auto& e : run_summary.at("pass_effects")) {
    compiler::PassEffect p;
    p.pass = e.at("pass").get<std::string>();
    p.applied = e.at("applied").get<int>();
    p.declined = e.at("declined").get<int>();
    p.verb = e.at("verb").get<std::string>();
    p.first_decline = e.at("first_decline").get<std::string>();
    p.summary = e.at("summary").get<std::string>();
    effects.push_back(std::move(p));
  }
  return effects;
}

void put_pass_effects(nlohmann::json& entry, const RunSummary& r, const RunSummary* baseline) {
  nlohmann::json effects = nlohmann::json::array();
  for (const compiler::PassEffect& p : r.pass_effects)
    effects.push_back({{"pass", p.pass}, {"applied", p.applied}, {"declined", p.declined}, {"verb", p.verb},
                       {"first_decline", p.first_decline}, {"summary", p.summary}});
  entry["pass_effects"] = effects;
  entry["changed_nothing"] = baseline && baseline != &r ? nlohmann::json(same_as_baseline(r, *baseline)) : nlohmann::json(nullptr);
  entry["strategy_effect"] = effect_text(r, baseline);
}

}  // namespace npu::sim
