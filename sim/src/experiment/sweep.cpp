// Running a sweep (sweep.hpp, docs/sweep.md).
#include "npu/sim/experiment/sweep.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "npu/base/files.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "npu/sim/experiment/cell_plan.hpp"
#include "npu/sim/experiment/experiment.hpp"
#include "npu/sim/io/output_files.hpp"
#include "npu/sim/experiment/sweep_spec.hpp"

namespace npu::sim {
namespace fs = std::filesystem;

std::pair<int, int> parse_shard(const std::string& text) {
  int i = 0, n = 0;
  char slash = 0;
  std::istringstream in(text);
  if (!(in >> i >> slash >> n) || slash != '/' || n <= 0 || i < 0 || i >= n || !in.eof())
    throw ConfigError(fmt::format("--shard '{}': error: expected i/N with 0 <= i < N (e.g. 0/4)", text));
  return {i, n};
}

namespace {

/// Holds an exclusive flock on a file for its lifetime (released on close, also on a crash).
class FileLock {
 public:
  explicit FileLock(const std::string& path) : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    if (fd_ >= 0) ::flock(fd_, LOCK_EX);
  }
  ~FileLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_;
};

/// True when the cell's result reads back (ok), or it failed before and is not retried.
bool is_done(const std::string& run_dir, bool retry_failed, bool& failed) {
  std::error_code ec;
  failed = false;
  if (fs::exists(fs::path(run_dir) / "run_summary.json", ec)) {
    ExperimentJob job;
    job.run_dir = run_dir;
    if (read_run_summary(job).ok) return true;
  }
  if (fs::exists(fs::path(run_dir) / "failed.json", ec)) {
    failed = true;
    return !retry_failed;
  }
  return false;
}

}  // namespace

SweepOutcome run_sweep(const SweepOptions& opt) {
  if (opt.jobs < 1) throw ConfigError(fmt::format("npu sweep: error: -j {} must be at least 1", opt.jobs));
  const auto [shard_i, shard_n] = opt.shard.empty() ? std::pair<int, int>{0, 1} : parse_shard(opt.shard);
  const SweepSpec spec = load_sweep_spec(opt.spec_path);
  const Plan plan = plan_sweep(spec);

  create_output_folder((fs::path(opt.out_dir) / "cells").string());  // names a file in the way
  if (::access(opt.out_dir.c_str(), W_OK) != 0)
    throw ConfigError(fmt::format("--out '{}': error: the folder cannot be written\n  choose a writable folder",
                                  opt.out_dir));
  write_plan(opt.out_dir, plan);

  SweepOutcome out;
  out.planned = plan.cells.size();
  std::map<std::string, std::string> config_of;  // hw name -> the config the child reads
  for (auto& cfg : plan_configs(spec)) config_of[cfg.hw_name] = std::move(cfg.config_yaml);
  std::vector<ExperimentJob> jobs;
  for (std::size_t k = 0; k < plan.cells.size(); ++k) {
    if (int(k % std::size_t(shard_n)) != shard_i) continue;
    const PlannedCell& c = plan.cells[k];
    ++out.in_shard;
    if (!c.invalid.empty()) {
      ++out.invalid;
      continue;
    }
    const std::string run_dir = (fs::path(opt.out_dir) / c.run_dir).string();
    bool failed_before = false;
    if (is_done(run_dir, opt.retry_failed, failed_before)) {
      ++out.skipped;
      out.failed += failed_before;
      continue;
    }
    // The cell's inputs beside its results: the resolved config the child reads, cell.json.
    const std::string hw_path = (fs::path(opt.out_dir) / c.hw_arg).string();
    create_output_folder(run_dir);
    write_file_atomic(hw_path, config_of.at(c.hw));
    nlohmann::ordered_json j = {{"key", c.key}, {"model", c.model_arg}, {"hw", c.hw}, {"strategy", c.strategy_arg},
                                {"spec", spec.source}};
    nlohmann::ordered_json axes = nlohmann::ordered_json::object();
    for (const auto& [p, v] : c.axes) axes[p] = v;
    j["axes"] = axes;
    write_file_atomic((fs::path(run_dir) / "cell.json").string(), j.dump(1) + "\n");
    jobs.push_back({c.model_arg, hw_path, c.strategy_arg, run_dir, c.model + " " + c.hw + " " + c.strategy});
  }

  ExperimentOptions eo;
  eo.out_dir = opt.out_dir;
  eo.jobs = opt.jobs;
  eo.traces = spec.traces;
  eo.self_exe = opt.self_exe;
  eo.quiet = opt.quiet;
  eo.npu_only = spec.npu_only;
  eo.dynamic_size = spec.dynamic_size;
  eo.input_shapes = spec.input_shapes;
  eo.copy_layers = false;  // each cell keeps its layers.csv in its own folder
  eo.progress_total = out.in_shard;
  eo.progress_done = out.in_shard - jobs.size();
  if (!jobs.empty()) {
    const auto results = run_experiment(eo, jobs);
    out.ran = results.size();
    for (const auto& r : results) out.failed += r.ok ? 0 : 1;
  }

  FileLock lock((fs::path(opt.out_dir) / ".summary.lock").string());
  out.report = write_report({opt.out_dir}, opt.out_dir);
  return out;
}

}  // namespace npu::sim
