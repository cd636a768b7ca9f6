// Re-running into an existing experiment folder (experiment_folder.hpp).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include <nlohmann/json.hpp>

#include "npu/sim/experiment/experiment_folder.hpp"

namespace npu::sim {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

/// The jobs of the folder's previous summary.json (none when absent or unreadable: a folder
/// without a summary has no earlier rows to keep).
std::vector<ExperimentJob> earlier_jobs(const std::string& out_dir) {
  std::vector<ExperimentJob> jobs;
  const fs::path p = fs::path(out_dir) / "summary.json";
  std::ifstream in(p, std::ios::binary);
  if (!in) return jobs;
  try {
    const json rows = json::parse(in);
    for (const auto& r : rows) {
      ExperimentJob j;
      j.model = r.at("model_arg").get<std::string>();
      j.hw = r.at("hw_arg").get<std::string>();
      j.strategy = r.at("strategy").get<std::string>();
      j.id = stem_of(j.model) + "__" + stem_of(j.hw) + "__" + stem_of(j.strategy);
      j.run_dir = (fs::path(out_dir) / "runs" / j.id).string();
      jobs.push_back(std::move(j));
    }
  } catch (const std::exception& e) {
    std::cerr << "npu experiment: warning: " << p.string() << " of an earlier run is malformed (" << e.what()
              << "); its rows are not kept\n";
    jobs.clear();
  }
  return jobs;
}

/// A run folder's run_summary.json belongs to `job` (same model, hw and strategy stems).
bool result_matches(const ExperimentJob& job) {
  std::ifstream in(fs::path(job.run_dir) / "run_summary.json", std::ios::binary);
  try {
    const json s = json::parse(in);
    return s.at("model").get<std::string>() == stem_of(job.model) && s.at("hw").get<std::string>() == stem_of(job.hw);
  } catch (const std::exception&) {
    return false;
  }
}

/// Entries an experiment writes, so that a folder of the user's own files given as --out loses
/// none of them: a run folder holds cell.json, run_summary.json or log.txt; a layer CSV is named
/// by a run id (model__hw__strategy); a plot by scripts/plot_experiment.py.
bool is_run_folder(const fs::path& dir) {
  std::error_code ec;
  for (const char* f : {"cell.json", "run_summary.json", "log.txt"})
    if (fs::exists(dir / f, ec)) return true;
  return false;
}

bool is_run_id(const std::string& stem) {
  const std::size_t a = stem.find("__");
  return a != std::string::npos && a > 0 && stem.find("__", a + 2) != std::string::npos;
}

bool is_experiment_plot(const fs::path& p) {
  const std::string name = p.filename().string();
  if (p.extension() != ".png") return false;
  for (const char* prefix : {"strategies_", "layers_", "roofline_"})
    if (name.rfind(prefix, 0) == 0) return true;
  return false;
}

}  // namespace

std::vector<RunSummary> merge_with_earlier_runs(const std::string& out_dir, const std::vector<RunSummary>& runs,
                                                MergeReport& report) {
  std::vector<RunSummary> merged = runs;
  std::set<std::string> ids;
  for (const auto& r : runs) ids.insert(r.job.id);
  for (const ExperimentJob& job : earlier_jobs(out_dir)) {
    if (!ids.insert(job.id).second) continue;  // run again now (or listed twice): the new row wins
    RunSummary r = read_run_summary(job);
    if (r.ok && result_matches(job)) {
      r.earlier_run = true;
      merged.push_back(std::move(r));
      ++report.kept_earlier;
    } else {
      ids.erase(job.id);
      ++report.dropped_earlier;
    }
  }
  // Remove what an experiment wrote and no row describes, so that the folder holds what the
  // summary says; anything else in it (the user's own files) stays.
  std::set<std::string> ok_ids;
  for (const auto& r : merged)
    if (r.ok) ok_ids.insert(r.job.id);
  // Collected first, removed after: entries are not removed while a directory is iterated.
  std::vector<fs::path> stale, stale_plots;
  std::error_code ec;
  const fs::path layers = fs::path(out_dir) / "layers";
  if (fs::is_directory(layers, ec))
    for (const auto& e : fs::directory_iterator(layers, ec))
      if (e.path().extension() == ".csv" && is_run_id(e.path().stem().string()) &&
          !ok_ids.count(e.path().stem().string()))
        stale.push_back(e.path());
  const fs::path run_root = fs::path(out_dir) / "runs";
  if (fs::is_directory(run_root, ec))
    for (const auto& e : fs::directory_iterator(run_root, ec))
      if (e.is_directory(ec) && !ids.count(e.path().filename().string()) && is_run_folder(e.path()))
        stale.push_back(e.path());
  const fs::path plots = fs::path(out_dir) / "plots";
  if (fs::is_directory(plots, ec))
    for (const auto& e : fs::directory_iterator(plots, ec))
      if (is_experiment_plot(e.path())) stale_plots.push_back(e.path());
  for (const auto& p : stale)
    if (fs::remove_all(p, ec) > 0) ++report.removed_stale;
  for (const auto& p : stale_plots)
    if (fs::remove(p, ec)) ++report.removed_plots;
  return merged;
}

Plan plan_with_earlier_rows(const Plan& now, const Plan* earlier, const std::vector<RunSummary>& merged,
                            const ExperimentOptions& opt) {
  Plan plan = now;
  std::set<std::string> planned;
  for (const auto& c : plan.cells) planned.insert(c.run_dir);
  std::vector<ExperimentJob> replan;
  for (const auto& r : merged) {
    if (!r.earlier_run) continue;
    const std::string run_dir = "runs/" + r.job.id;
    if (!planned.insert(run_dir).second) continue;
    const PlannedCell* found = nullptr;
    if (earlier)
      for (const auto& c : earlier->cells)
        if (c.run_dir == run_dir) found = &c;
    if (found)
      plan.cells.push_back(*found);
    else
      replan.push_back(r.job);
  }
  // One at a time: a row whose model or config file is gone since cannot be planned again, and is
  // left out of the plan (as before) rather than failing the finished experiment.
  for (const ExperimentJob& job : replan) {
    try {
      for (auto& c : plan_job_cells(opt, {job}).cells) plan.cells.push_back(std::move(c));
    } catch (const ConfigError&) {
    }
  }
  return plan;
}

}  // namespace npu::sim
