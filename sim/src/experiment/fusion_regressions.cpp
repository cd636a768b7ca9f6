#include "npu/sim/experiment/fusion_regressions.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace npu::sim {

namespace fs = std::filesystem;

std::vector<std::string> strategy_passes(const RunSummary& r) {
  std::vector<std::string> out;
  for (const compiler::PassEffect& p : r.pass_effects) out.push_back(p.pass);
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

bool proper_subset(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  return a.size() < b.size() && std::includes(b.begin(), b.end(), a.begin(), a.end());
}

// Exclusive core cycles per layer in run order, from run.json; empty when unreadable.
std::vector<std::pair<std::string, double>> layer_cycles(const RunSummary& r) {
  std::vector<std::pair<std::string, double>> out;
  std::ifstream in(fs::path(r.job.run_dir) / "run.json");
  if (!in) return out;
  try {
    const nlohmann::json j = nlohmann::json::parse(in);
    for (const auto& l : j.at("layers"))
      out.emplace_back(l.at("name").get<std::string>(), l.at("exclusive_cycles").get<double>());
  } catch (const std::exception&) {
    out.clear();
  }
  return out;
}

double ms_per_cycle(const RunSummary& r) { return r.cycles > 0 ? r.latency_ms / double(r.cycles) : 0.0; }

// "the layers both ran took +D ms (most: ...), the K layers B fused away had taken Z ms".
std::string layer_text(const RunSummary& b, const RunSummary& a) {
  const auto lb = layer_cycles(b), la = layer_cycles(a);
  if (lb.empty() || la.empty()) return "";
  std::map<std::string, double> in_b(lb.begin(), lb.end());
  double common = 0, gone = 0;
  int gone_count = 0;
  std::vector<std::pair<double, std::string>> rises;
  for (const auto& [name, cyc] : la) {
    const auto it = in_b.find(name);
    if (it == in_b.end()) {
      gone += cyc * ms_per_cycle(a);
      ++gone_count;
      continue;
    }
    const double d = it->second * ms_per_cycle(b) - cyc * ms_per_cycle(a);
    common += d;
    if (d > 0) rises.emplace_back(-d, name);
  }
  std::sort(rises.begin(), rises.end());
  std::string most;
  for (std::size_t i = 0; i < rises.size() && i < 2; ++i)
    most += fmt::format("{}{} {:+.3f} ms", i ? ", " : "", rises[i].second, -rises[i].first);
  return fmt::format(": the layers both ran took {:+.3f} ms{}, the {} layer(s) {} fused away had taken {:.3f} ms", common,
                     most.empty() ? "" : " (most: " + most + ")", gone_count, strategy_label(b.job.strategy), gone);
}

std::string regression_line(const RunSummary& b, const RunSummary& a) {
  const std::string sb = strategy_label(b.job.strategy), sa = strategy_label(a.job.strategy);
  std::string line = fmt::format("slower: {} {} {} {:.3f} ms is {:+.1f} % against {} {:.3f} ms, though its passes include {}'s",
                                 stem_of(b.job.model), stem_of(b.job.hw), sb, b.latency_ms,
                                 100 * (b.latency_ms / a.latency_ms - 1), sa, a.latency_ms, sa);
  line += layer_text(b, a);
  if (b.plan_sram_bytes > 0 && a.plan_sram_bytes > 0 && b.plan_sram_bytes != a.plan_sram_bytes)
    line += fmt::format("; {}'s program was compiled for a {}-byte SRAM plan, {}'s for {}", sb, b.plan_sram_bytes, sa,
                        a.plan_sram_bytes);
  return line + "\n";
}

// One line per slower run; runs with the same figures against the same run (on CNNs residual,
// transformer and depth-first often compile to one program) share the first one's line.
struct Regression {
  const RunSummary* b;
  const RunSummary* a;
  std::vector<std::string> same;  // the strategies of the runs with b's figures
};

bool same_figures(const RunSummary& x, const RunSummary& y) {
  return x.cycles == y.cycles && x.ddr_read_mb == y.ddr_read_mb && x.ddr_write_mb == y.ddr_write_mb;
}

}  // namespace

std::string fusion_regression_lines(const std::vector<const RunSummary*>& runs) {
  std::vector<Regression> found;
  for (const RunSummary* b : runs) {
    if (!b->ok || b->latency_ms <= 0) continue;
    const auto pb = strategy_passes(*b);
    const RunSummary* best = nullptr;
    for (const RunSummary* a : runs) {
      if (a == b || !a->ok || a->latency_ms <= 0 || stem_of(a->job.model) != stem_of(b->job.model) ||
          stem_of(a->job.hw) != stem_of(b->job.hw) || !proper_subset(strategy_passes(*a), pb))
        continue;
      if (b->latency_ms > a->latency_ms * (1 + kFusionRegressionTolerance) && (!best || a->latency_ms < best->latency_ms))
        best = a;
    }
    if (!best) continue;
    const auto twin = std::find_if(found.begin(), found.end(),
                                   [&](const Regression& r) { return r.a == best && same_figures(*r.b, *b); });
    if (twin != found.end())
      twin->same.push_back(strategy_label(b->job.strategy));
    else
      found.push_back({b, best, {}});
  }
  std::string lines;
  for (const Regression& r : found) {
    std::string line = regression_line(*r.b, *r.a);
    if (!r.same.empty()) {
      line.pop_back();  // the newline
      std::string names;
      for (const std::string& s : r.same) names += (names.empty() ? "" : ", ") + s;
      line += fmt::format("; {} ran the same cycles and bytes\n", names);
    }
    lines += line;
  }
  if (lines.empty()) return "";
  return "where fusing more was slower (per-layer tiles and plans: npu compile --explain; docs/experiment.md):\n" + lines;
}

}  // namespace npu::sim
