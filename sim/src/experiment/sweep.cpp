// Running a sweep (sweep.hpp, docs/sweep.md).
#include "npu/sim/experiment/sweep.hpp"
#include "npu/sim/experiment/experiment_folder.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <map>
#include <sstream>

#include <unordered_set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "npu/base/files.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "npu/sim/experiment/cell_plan.hpp"
#include "npu/sim/experiment/cell_resume.hpp"
#include "npu/sim/experiment/experiment.hpp"
#include "npu/sim/io/output_files.hpp"
#include "npu/sim/experiment/sweep_configs.hpp"
#include "npu/sim/experiment/sweep_size.hpp"
#include "npu/sim/experiment/sweep_clock_note.hpp"
#include "npu/sim/experiment/sweep_trace_mode_note.hpp"
#include "npu/sim/llm/llm_out_folder.hpp"
#include "npu/sim/experiment/sweep_spec.hpp"

namespace npu::sim {
namespace fs = std::filesystem;

std::pair<int, int> parse_shard(const std::string& text) {
  // Digits, one '/', digits: no sign, space or other text (istream >> took " 1/3" and "+1/3").
  const auto slash = text.find('/');
  const auto digits = [](const std::string& s) {
    return !s.empty() && s.size() <= 9 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  const std::string a = slash == std::string::npos ? "" : text.substr(0, slash);
  const std::string b = slash == std::string::npos ? "" : text.substr(slash + 1);
  const int i = digits(a) ? std::stoi(a) : -1, n = digits(b) ? std::stoi(b) : 0;
  if (i < 0 || n <= 0 || i >= n)
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
  const CellState state = cell_state(run_dir);
  failed = state == CellState::Failed;
  return state == CellState::Ok || (failed && !retry_failed);
}

/// Progress of plan_configs on stderr: a line about once a second after the first second
/// ("sweep: planning configs: N of M"), and a last line if any was printed.
PlanProgress planning_progress() {
  using Clock = std::chrono::steady_clock;
  auto start = std::make_shared<Clock::time_point>(Clock::now());
  auto last = std::make_shared<Clock::time_point>(*start);
  auto printed = std::make_shared<bool>(false);
  return [start, last, printed](std::size_t done, std::size_t total) {
    const auto now = Clock::now();
    if (done < total && now - *last < std::chrono::seconds(1)) return;
    if (done == total && !*printed) return;
    *last = now;
    *printed = true;
    std::cerr << fmt::format("sweep: planning configs: {} of {} ({:.1f} s)\n", done, total,
                             std::chrono::duration<double>(now - *start).count());
  };
}

}  // namespace

// The names of the cell folders under DIR/cells (the cells run into DIR so far): those holding a
// cell.json; a folder of the user's own there is no cell (new-user finding: it was counted as an
// earlier spec's).
static std::unordered_set<std::string> cell_folders(const std::string& out_dir) {
  std::unordered_set<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fs::path(out_dir) / "cells", ec))
    if (e.is_directory(ec) && fs::exists(e.path() / "cell.json", ec)) names.insert(e.path().filename().string());
  return names;
}

/// How the sweep's cells run: its options and the spec's, `to_run` of the shard's `in_shard`
/// cells left (the others ran before).
static ExperimentOptions cell_run_options(const SweepOptions& opt, const SweepSpec& spec, std::size_t in_shard,
                                          std::size_t to_run) {
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
  eo.progress_total = in_shard;
  eo.progress_done = in_shard - to_run;
  return eo;
}

SweepOutcome run_sweep(const SweepOptions& opt) {
  if (opt.jobs < 1) throw ConfigError(fmt::format("npu sweep: error: -j {} must be at least 1", opt.jobs));
  // Plain ints, not a structured binding: C++17 lets no lambda capture a binding (clang refuses).
  const std::pair<int, int> shard = opt.shard.empty() ? std::pair<int, int>{0, 1} : parse_shard(opt.shard);
  const int shard_i = shard.first, shard_n = shard.second;
  const SweepSpec spec = load_sweep_spec(opt.spec_path);
  check_sweep_size(spec, opt.max_cells);
  refuse_llm_folder(opt.out_dir, "npu sweep");
  if (!opt.quiet) std::cerr << sweep_trace_mode_note(spec);  // a queue-depth axis changes nothing in NPU runs
  const std::vector<ConfigPoint> points = plan_config_points(spec, planning_progress());
  if (!opt.quiet) std::cerr << sweep_clock_note(spec, points);  // a data-rate axis stretches the clock-counted timings

  create_output_folder((fs::path(opt.out_dir) / "cells").string());  // names a file in the way
  if (::access(opt.out_dir.c_str(), W_OK) != 0)
    throw ConfigError(fmt::format("--out '{}': error: the folder cannot be written\n  choose a writable folder",
                                  opt.out_dir));
  // One sweep (or one shard of it) per folder at a time; the shards of a sweep share it.
  const bool sharded = shard_n > 1;
  const FolderLock folder_lock(opt.out_dir, sharded ? fmt::format(".lock.shard-{}-of-{}", shard_i, shard_n) : ".lock",
                               sharded ? fmt::format("npu sweep of shard {}/{}", shard_i, shard_n)
                                       : std::string("npu sweep or experiment"));
  SweepOutcome out;
  std::vector<ExperimentJob> jobs;
  // The plan is streamed to plan.json cell by cell; a cell to run gets its folder, the
  // resolved config the child reads (resolved again from its point: no YAML is held) and
  // cell.json.
  PlanWriter plan(opt.out_dir, plan_sweep_header(spec));
  ConfigSpace space(spec);
  std::size_t k = 0;
  std::unordered_set<std::string> unplanned = cell_folders(opt.out_dir);  // as many as ran before
  plan_sweep_cells(spec, points, [&](const PlannedCell& c, std::size_t point) {
    plan.add(c);
    if (!unplanned.empty()) unplanned.erase(fs::path(c.run_dir).filename().string());
    if (!c.invalid.empty() && out.planned_invalid++ == 0) out.first_invalid = c.hw + ": " + c.invalid;
    if (int(k++ % std::size_t(shard_n)) != shard_i) return;
    ++out.in_shard;
    if (!c.invalid.empty()) {
      ++out.invalid;
      return;
    }
    const std::string run_dir = (fs::path(opt.out_dir) / c.run_dir).string();
    bool failed_before = false;
    if (is_done(run_dir, opt.retry_failed, failed_before)) {
      ++out.skipped;
      out.failed += failed_before;
      return;
    }
    const std::string hw_path = (fs::path(opt.out_dir) / c.hw_arg).string();
    create_output_folder(run_dir);
    write_file_atomic(hw_path, space.resolve(point, c.hw).config_yaml);
    write_cell_record(run_dir, c, c.hw, spec.source);
    jobs.push_back({c.model_arg, hw_path, c.strategy_arg, run_dir, c.model + " " + c.hw + " " + c.strategy});
  });
  plan.commit();
  out.planned = plan.count();
  out.stale_cells = unplanned.size();

  if (!jobs.empty()) {
    const auto results = run_experiment(cell_run_options(opt, spec, out.in_shard, jobs.size()), jobs);
    out.ran = results.size();
    out.interrupted_by = interruption_of(results);
    for (const auto& r : results) {
      out.failed += r.ok || r.interrupted_by ? 0 : 1;
      out.ran -= r.interrupted_by ? 1 : 0;  // stopped or never started: not run to the end
    }
  }

  FileLock lock((fs::path(opt.out_dir) / ".summary.lock").string());
  out.report = write_report({opt.out_dir}, opt.out_dir);
  return out;
}

std::string all_invalid_error(const SweepOutcome& out, const std::string& out_dir) {
  if (out.planned == 0 || out.planned_invalid < out.planned) return "";
  return fmt::format("npu sweep: error: no cell ran: all {} planned cells are invalid (the config loader refused "
                     "every config point); the first: {}\n  fix: change the spec's axes or set values so that some "
                     "config point is valid; every cell's reason is in {}/summary.md (status 'invalid')",
                     out.planned, out.first_invalid, out_dir);
}

}  // namespace npu::sim
