// Resuming experiment and sweep folders (cell_resume.hpp).
#include "npu/sim/experiment/cell_resume.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include <nlohmann/json.hpp>

#include "npu/sim/io/output_files.hpp"

namespace npu::sim {
namespace fs = std::filesystem;

CellState cell_state(const std::string& run_dir) {
  std::error_code ec;
  if (fs::exists(fs::path(run_dir) / "run_summary.json", ec)) {
    ExperimentJob job;
    job.run_dir = run_dir;
    if (read_run_summary(job).ok) return CellState::Ok;
  }
  if (fs::exists(fs::path(run_dir) / "failed.json", ec)) return CellState::Failed;
  return CellState::NotDone;
}

std::string recorded_cell_key(const std::string& run_dir) {
  std::ifstream in(fs::path(run_dir) / "cell.json", std::ios::binary);
  if (!in) return "";
  try {
    return nlohmann::json::parse(in).at("key").get<std::string>();
  } catch (const std::exception&) {
    return "";
  }
}

void write_cell_record(const std::string& run_dir, const PlannedCell& cell, const std::string& hw,
                       const std::string& spec) {
  std::error_code ec;
  fs::create_directories(run_dir, ec);
  nlohmann::ordered_json j = {{"key", cell.key}, {"model", cell.model_arg}, {"hw", hw}, {"strategy", cell.strategy_arg}};
  if (!spec.empty()) j["spec"] = spec;
  nlohmann::ordered_json axes = nlohmann::ordered_json::object();
  for (const auto& [p, v] : cell.axes) axes[p] = v;
  j["axes"] = axes;
  write_file_atomic((fs::path(run_dir) / "cell.json").string(), j.dump(1) + "\n");
}

std::vector<RunSummary> run_experiment_resumed(const ExperimentOptions& opt, const Plan& plan, std::size_t& reused) {
  return run_jobs_resumed(opt, plan, plan_experiment(opt), reused);
}

std::vector<RunSummary> run_jobs_resumed(const ExperimentOptions& opt, const Plan& plan,
                                         const std::vector<ExperimentJob>& jobs, std::size_t& reused) {
  std::map<std::string, const PlannedCell*> cell_of;  // run_dir relative to the folder -> planned cell
  for (const auto& c : plan.cells) cell_of[c.run_dir] = &c;
  std::vector<RunSummary> results(jobs.size());
  std::vector<ExperimentJob> to_run;
  std::vector<std::size_t> to_run_index;
  reused = 0;
  std::size_t other_key = 0;  // finished runs made under another key: run again, and said so
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    const ExperimentJob& job = jobs[k];
    const PlannedCell& cell = *cell_of.at("runs/" + job.id);
    if (cell_state(job.run_dir) == CellState::Ok) {
      if (recorded_cell_key(job.run_dir) == cell.key) {
        results[k] = collect_finished_run(opt, job);
        reused += results[k].ok ? 1 : 0;
        if (results[k].ok) continue;
      } else {
        ++other_key;
      }
    }
    std::error_code ec;  // an older result (another key) must not pass for this cell's
    fs::remove(fs::path(job.run_dir) / "run_summary.json", ec);
    fs::remove(fs::path(job.run_dir) / "failed.json", ec);
    write_cell_record(job.run_dir, cell, job.hw, "");
    to_run.push_back(job);
    to_run_index.push_back(k);
  }
  if (other_key > 0 && !opt.quiet)
    std::cerr << "note: " << other_key << " finished simulation(s) in this folder were made under another key "
              << "(another npu build, another config content, model or strategy for the same name, or other options: "
                 "traces, --input-shape, --dynamic-size, --npu-only, --dropout-as-identity, --verify data); they run "
                 "again\n";
  ExperimentOptions eo = opt;
  eo.progress_total = jobs.size();
  eo.progress_done = jobs.size() - to_run.size();
  if (!to_run.empty()) {
    std::vector<RunSummary> fresh = run_experiment(eo, to_run);
    for (std::size_t i = 0; i < fresh.size(); ++i) results[to_run_index[i]] = std::move(fresh[i]);
  }
  return results;
}

}  // namespace npu::sim
