#include "npu/sim/run/trace_kinds.hpp"
#include "npu/sim/llm/llm_out_folder.hpp"
#include "npu/sim/experiment/experiment.hpp"
#include "npu/base/user_text.hpp"
#include "npu/sim/experiment/child_signals.hpp"
#include "npu/sim/experiment/compile_warnings.hpp"
#include "npu/sim/experiment/summary_figures.hpp"
#include "npu/sim/experiment/fusion_regressions.hpp"
#include "npu/sim/experiment/strategy_effects.hpp"
#include "npu/sim/experiment/sweep.hpp"
#include "npu/base/json_text.hpp"
#include "npu/base/closest_name.hpp"

#include "npu/compiler/frontend/model_loader.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "npu/compiler/transforms/strategy.hpp"
#include "npu/compiler/frontend/zoo/zoo.hpp"
#include "npu/compiler/frontend/zoo/llm/llm_name.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "npu/base/closest_name.hpp"
#include "npu/base/csv.hpp"
#include "npu/base/files.hpp"
#include "npu/base/safe_file_name.hpp"
#include "npu/sim/verify/experiment_verify.hpp"
#include "npu/sim/io/ddr_trace_files.hpp"
#include "npu/sim/io/output_files.hpp"

namespace npu::sim {
namespace fs = std::filesystem;
using nlohmann::json;

std::string stem_of(const std::string& path_or_name) {
  // Only a file's own suffix goes: a zoo name's dot is part of it ("llama-3.2-1b:prefill=3"
  // was cut to "llama-3", and two such models then shared one name).
  const fs::path p(path_or_name);
  const std::string ext = p.extension().string();
  const bool file_suffix = ext == ".onnx" || ext == ".yaml" || ext == ".yml" || ext == ".npuasm";
  std::string stem = file_suffix ? p.stem().string() : p.filename().string();
  if (stem.empty()) stem = path_or_name;
  return npu::safe_file_name(stem);
}

void refuse_repeated_names(const std::vector<std::string>& items, const char* flag,
                           const std::function<std::string(const std::string&)>& name_of) {
  std::set<std::string> seen;
  for (const std::string& item : items)
    if (!seen.insert(name_of(item)).second)
      throw ConfigError(fmt::format("{} '{}': error: given twice (or two arguments share the name '{}'); give each once",
                                    flag, item, name_of(item)));
}

void refuse_shared_run_folders(const std::vector<ExperimentJob>& jobs) {
  // A run folder is named from the file stems: two cells with the same stems would write (and
  // on a rerun, reuse) one folder, and one cell would show the other's figures.
  std::map<std::string, std::size_t> first;
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    const auto [it, fresh] = first.emplace(jobs[k].id, k);
    if (fresh) continue;
    const ExperimentJob& a = jobs[it->second];
    const ExperimentJob& b = jobs[k];
    throw ConfigError(fmt::format(
        "npu experiment: error: the cells (model '{}', hw '{}', strategy '{}') and (model '{}', hw '{}', strategy "
        "'{}') would share the run folder runs/{} (named model__hw__strategy from the file names)\n  fix: rename "
        "one of the files so that the names differ, or run them into separate --out folders",
        a.model, a.hw, a.strategy, b.model, b.hw, b.strategy, a.id));
  }
}

std::vector<ExperimentJob> plan_experiment(const ExperimentOptions& opt) {
  std::vector<ExperimentJob> jobs;
  for (const auto& m : opt.models)
    for (const auto& h : opt.hws)
      for (const auto& s : opt.strategies) {
        ExperimentJob j{m, h, s, "", ""};
        j.id = stem_of(m) + "__" + stem_of(h) + "__" + stem_of(s);
        j.run_dir = (fs::path(opt.out_dir) / "runs" / j.id).string();
        jobs.push_back(std::move(j));
      }
  refuse_shared_run_folders(jobs);
  if (!opt.shard.empty()) {
    const auto [i, n] = parse_shard(opt.shard);  // sweep.hpp
    std::vector<ExperimentJob> mine;
    for (std::size_t k = 0; k < jobs.size(); ++k)
      if (int(k % std::size_t(n)) == i) mine.push_back(jobs[k]);
    jobs = std::move(mine);
  }
  return jobs;
}

namespace {

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

bool is_zoo_name(const std::string& m) {
  const auto& names = compiler::zoo_model_names();
  return std::find(names.begin(), names.end(), m) != names.end() || m == "mobilenetv2";
}

}  // namespace

compiler::Strategy resolve_strategy(const std::string& name_or_path) {
  const auto ext = fs::path(name_or_path).extension();
  if (ext == ".yaml" || ext == ".yml") return compiler::load_strategy_file(name_or_path);  // file:line:col errors
  const auto names = compiler::builtin_strategy_names();
  if (std::find(names.begin(), names.end(), name_or_path) == names.end()) {
    const auto near = closest_name(name_or_path, names);
    throw ConfigError(fmt::format("strategy '{}': error: unknown strategy{}\n  allowed: {}; or the path of a strategy "
                                  "YAML file (name: ..., passes: [...]; see docs/compiler.md)",
                                  name_or_path, near ? " (did you mean '" + *near + "'?)" : "", join(names)));
  }
  return compiler::builtin_strategy(name_or_path);
}

std::string strategy_label(const std::string& name_or_path) {
  const auto ext = fs::path(name_or_path).extension();
  if (ext != ".yaml" && ext != ".yml") return name_or_path;
  try {
    return compiler::load_strategy_file(name_or_path).name;
  } catch (const std::exception&) {
    return stem_of(name_or_path);
  }
}

namespace {
// " (did you mean 'resnet50'?)" for a near zoo or LLM name, else "".
std::string did_you_mean_model(const std::string& m) {
  std::vector<std::string> all = compiler::zoo_model_names();
  for (const auto& n : compiler::llm_model_names()) all.push_back(n);
  const auto near = closest_name(m, all);
  return near ? fmt::format(" (did you mean '{}'?)", *near) : std::string();
}
}  // namespace

void validate_experiment(const ExperimentOptions& opt) {
  if (opt.models.empty()) throw ConfigError("npu experiment: error: no --model given (a zoo name or an .onnx path)");
  if (opt.hws.empty()) throw ConfigError("npu experiment: error: no --hw given (a YAML config, e.g. configs/edge-npu-ddr4.yaml)");
  if (opt.strategies.empty()) throw ConfigError("npu experiment: error: --strategies is empty");
  if (opt.jobs < 1) throw ConfigError(fmt::format("npu experiment: error: -j {} must be at least 1", opt.jobs));
  refuse_llm_folder(opt.out_dir, "npu experiment");
  for (const auto& m : opt.models) {
    if (is_zoo_name(m) || compiler::parse_llm_model_name(m)) continue;  // throws for a malformed LLM name
    std::error_code ec;
    bool looks_like_path = m.find('/') != std::string::npos || fs::path(m).extension() == ".onnx";
    if (!looks_like_path)
      throw ConfigError(fmt::format("--model '{}': error: not a zoo model and not an .onnx path{}\n  allowed zoo names: "
                                    "{}; LLMs {} as NAME[:prefill=P|:decode=T][:batch=B]",
                                    m, did_you_mean_model(m), join(compiler::zoo_model_names()),
                                    join(compiler::llm_model_names())));
    if (!fs::is_regular_file(m, ec))
      throw ConfigError(fmt::format("--model '{}': error: no such file\n  give the path of an .onnx file or a zoo name ({})",
                                    m, join(compiler::zoo_model_names())));
    std::ifstream probe(m, std::ios::binary);
    if (!probe) throw ConfigError(fmt::format("--model '{}': error: cannot be read (check permissions)", m));
  }
  for (const auto& s : opt.strategies) resolve_strategy(s);
  check_experiment_traces_and_shapes(opt);  // also malformed or repeated --input-shape
  // Each job writes runs/<model>__<hw>__<strategy>: names must not collide.
  refuse_repeated_names(opt.models, "--model");
  // One zoo model under two spellings (gpt2:decode=8, gpt2:decode=8:batch=1) would run twice.
  if (const auto pair = compiler::repeated_zoo_model(opt.models)) {
    const std::string &earlier = opt.models[pair->first], &later = opt.models[pair->second];
    throw ConfigError(fmt::format("--model '{}': error: the same model as '{}' ({}); give it once", later, earlier,
                                  *compiler::zoo_canonical_name(later)));
  }
  refuse_repeated_names(opt.strategies, "--strategies");
  {  // the summary names a strategy by its label (a YAML file's name:): labels must differ too
    std::map<std::string, std::string> labels;
    for (const auto& s : opt.strategies) {
      auto [it, fresh] = labels.emplace(strategy_label(s), s);
      if (!fresh)
        throw ConfigError(fmt::format("--strategies '{}': error: '{}' is also named '{}'; give the strategies "
                                      "different names",
                                      s, it->second, it->first));
    }
  }
  std::set<std::string> seen;
  const bool ddr_trace = std::find(opt.traces.begin(), opt.traces.end(), "ddr") != opt.traces.end();
  for (const auto& h : opt.hws) {
    const HwConfig hw = load_hw_config(h);  // throws ConfigError FILE:LINE:COL
    if (ddr_trace) require_ddr_model_for_trace(hw);
    if (!seen.insert(stem_of(h)).second)
      throw ConfigError(fmt::format("--hw '{}': error: two configs share the name '{}'; rename one file", h, stem_of(h)));
  }
  for (const auto& t : opt.traces) check_trace_kind(t);
  if (opt.trace_compress && std::find(opt.traces.begin(), opt.traces.end(), "ddr") == opt.traces.end())
    throw ConfigError("--trace-compress: error: it compresses the DDR trace; add --trace ddr or drop it");
  if (!opt.shard.empty()) plan_experiment(opt);  // throws for a malformed --shard
  if (opt.out_dir.empty())
    throw ConfigError("npu experiment: error: --out is missing or empty; give an output folder, e.g. --out results");
  check_output_folder(opt.out_dir);  // a file in the way of --out, named
  std::error_code ec;
  fs::create_directories(opt.out_dir, ec);
  const fs::path probe = fs::path(opt.out_dir) / ".npu-write-test";
  std::ofstream out(probe);
  if (ec || !out)
    throw ConfigError(fmt::format("--out '{}': error: the folder cannot be created or written{}\n  choose a writable folder",
                                  opt.out_dir, ec ? " (" + ec.message() + ")" : ""));
  out.close();
  fs::remove(probe, ec);
  // Folders every run writes into: a file in the way is the user's to move (exit 1), found
  // before any child starts (and before the folder lock: nothing is created here).
  check_output_folder((fs::path(opt.out_dir) / "runs").string());
  check_output_folder((fs::path(opt.out_dir) / "layers").string());
}

namespace {

double now_s() {
  using clock = std::chrono::steady_clock;
  static const auto t0 = clock::now();
  return std::chrono::duration<double>(clock::now() - t0).count();
}

struct Child {
  pid_t pid = -1;
  std::size_t index = 0;
  double start_s = 0;
};

std::vector<std::string> child_argv(const ExperimentOptions& opt, const ExperimentJob& job) {
  std::vector<std::string> argv{opt.self_exe, "simulate", "--model", job.model, "--hw", job.hw,
                                "--strategy", job.strategy, "--out", job.run_dir};
  if (opt.npu_only) argv.push_back("--npu-only");
  for (const auto& spec : opt.input_shapes) {
    argv.push_back("--input-shape");
    argv.push_back(spec);
  }
  if (opt.dynamic_size > 0) {
    argv.push_back("--dynamic-size");
    argv.push_back(std::to_string(opt.dynamic_size));
  }
  if (opt.dropout_as_identity) argv.push_back("--dropout-as-identity");
  if (opt.max_instructions > 0) {
    argv.push_back("--max-instructions");
    argv.push_back(std::to_string(opt.max_instructions));
  }
  if (!opt.traces.empty()) {
    std::string t;
    for (const auto& k : opt.traces) t += (t.empty() ? "" : ",") + k;
    argv.push_back("--trace");
    argv.push_back(t);
  }
  if (opt.trace_compress) argv.push_back("--trace-compress");
  if (opt.with_data && load_hw_config(job.hw).mac_array.dtype == DType::Fp32) {  // int8: timing only
    argv.push_back("--with-data");
    argv.push_back("--input-seed");
    argv.push_back(std::to_string(opt.input_seed));
    for (const auto& spec : opt.input_data) {
      argv.push_back("--input-data");
      argv.push_back(spec);
    }
    if (opt.allow_nonfinite) argv.push_back("--allow-nonfinite");
  }
  return argv;
}

// The child's first line naming an error, with the list it may introduce summarised
// (summary_line: the first item and how many others), so the summary says why, not just that.
std::string first_error_line(const std::string& log_path) {
  std::ifstream in(log_path);
  std::string line, first;
  while (std::getline(in, line)) {
    if (line.find("error") != std::string::npos) {
      std::string rest = line, next;
      while (std::getline(in, next)) rest += "\n" + next;
      return summary_line(rest);
    }
    if (first.empty() && !line.empty()) first = line;
  }
  return first.empty() ? "no output" : first;
}

}  // namespace

RunSummary read_run_summary(const ExperimentJob& job) {
  RunSummary r;
  r.job = job;
  fs::path p = fs::path(job.run_dir) / "run_summary.json";
  std::ifstream in(p);
  if (!in) {
    r.error = "no run_summary.json written";
    return r;
  }
  try {
    json j = json::parse(in);
    r.cycles = j.at("cycles").get<std::uint64_t>();
    r.latency_ms = j.at("latency_ms").get<double>();
    r.ddr_read_mb = j.at("ddr_read_bytes").get<double>() / 1e6;
    r.ddr_write_mb = j.at("ddr_write_bytes").get<double>() / 1e6;
    if (j.contains("compulsory_bytes")) r.compulsory_mb = j["compulsory_bytes"].get<double>() / 1e6;
    r.mac_utilisation = j.at("mac_utilisation").get<double>();
    r.host_mac_share = j.value("host_mac_share", 0.0);
    r.host_time_share = j.value("host_time_share", 0.0);
    r.host_nodes = j.value("host_nodes", 0);
    r.host_unsized = j.value("host_unsized_tensors", 0);
    r.ladder_skipped_params = j.value("sram_ladder_skipped_params", std::int64_t(0));
    r.plan_sram_bytes = j.value("plan_sram_bytes", std::uint64_t(0));
    for (const auto& w : j.value("warnings", json::array())) {
      if (!w.is_string()) continue;
      const std::string text = w.get<std::string>();
      r.warnings.push_back(text);
      if (text.find("its params region") != std::string::npos) {
        r.params_region_warnings.push_back(text);
      } else if (text.find("warning: mac_array.weight_dtype ") != std::string::npos ||
                 text.find("warning: mac_array.kv_cache_dtype ") != std::string::npos) {
        r.precision_warnings.push_back(text);
      } else if (!shown_by_host_or_ladder_lines(text)) {
        r.compile_warnings.push_back(without_source(text));
      }
    }
    r.ddr_bw_utilisation = j.at("ddr_bw_utilisation").get<double>();
    if (j.contains("energy_mj") && !j["energy_mj"].is_null()) r.energy_mj = j["energy_mj"].get<double>();
    r.pass_effects = read_pass_effects(j);
    r.peak_ddr_gbps = j.value("peak_ddr_gbps", 0.0);
    r.stream_ddr_gbps = j.value("stream_ddr_gbps", 0.0);
    r.ok = true;
  } catch (const std::exception& e) {
    r.error = fmt::format("{}: malformed: {}", p.string(), e.what());
  }
  return r;
}

RunSummary collect_finished_run(const ExperimentOptions& opt, const ExperimentJob& job) {
  RunSummary r = read_run_summary(job);
  if (opt.copy_layers) {
    const fs::path layers = fs::path(opt.out_dir) / "layers";
    create_output_folder(layers.string());
    if (r.ok && !copy_file_atomic((fs::path(job.run_dir) / "layers.csv").string(), (layers / (job.id + ".csv")).string())) {
      r.ok = false;  // never a summary row whose layer table is not there
      r.error = "no layers.csv written";
    }
  }
  return r;
}

namespace {
// The experiment's progress on stderr: done/total (counting cells finished before this call),
// failures, and the ETA from this call's rate so far; in place on a terminal, a plain line per
// finished job otherwise.
class ProgressLine {
 public:
  ProgressLine(const ExperimentOptions& opt, std::size_t jobs)
      : quiet_(opt.quiet),
        tty_(isatty(STDERR_FILENO) != 0),
        t_start_(now_s()),
        jobs_(jobs),
        total_(opt.progress_total ? opt.progress_total : jobs),
        done_before_(opt.progress_done) {}

  // Shows `what` after `done` jobs of which `failed` failed; only finished jobs off a terminal.
  void show(const std::string& what, bool finished, std::size_t done, std::size_t failed) const {
    if (quiet_ || (!tty_ && !finished)) return;
    const double elapsed = now_s() - t_start_;
    std::string eta = "--";
    if (done > 0 && done < jobs_) {
      const double s = elapsed / double(done) * double(jobs_ - done);
      eta = s >= 3600 ? fmt::format("{}h{:02}m", int(s / 3600), int(s / 60) % 60)
                      : fmt::format("{}m{:02}s", int(s / 60), int(s) % 60);
    }
    std::string line = fmt::format("[{}/{}] {} failed  {:6.1f} s  ETA {}  {}", done_before_ + done, total_, failed,
                                   elapsed, eta, what);
    if (tty_)
      std::fprintf(stderr, "\r\033[K%s", line.c_str());
    else
      std::fprintf(stderr, "%s\n", line.c_str());
    std::fflush(stderr);
  }

  // Ends the in-place line on a terminal.
  void end() const {
    if (tty_ && !quiet_) std::fprintf(stderr, "\n");
  }

 private:
  bool quiet_;
  bool tty_;
  double t_start_;
  std::size_t jobs_, total_, done_before_;
};

// Starts the child of `job` in a clean run folder, its output in log.txt; -1 if it cannot start.
pid_t start_job(const ChildSignals& children, const ExperimentOptions& opt, const ExperimentJob& job) {
  create_output_folder(job.run_dir);
  fs::remove(fs::path(job.run_dir) / "run_summary.json");
  fs::remove(fs::path(job.run_dir) / "failed.json");
  std::string log = (fs::path(job.run_dir) / "log.txt").string();
  return children.spawn(child_argv(opt, job), log);
}

// The summary of a child that failed with wait status `status`: its first error line or signal.
// `interrupt` is the signal the experiment forwarded to its children (0: none).
RunSummary failed_job(const ExperimentJob& job, int status, int interrupt) {
  RunSummary r;
  r.job = job;
  if (interrupt && (WIFSIGNALED(status) || WEXITSTATUS(status) == interrupted_exit_status(interrupt))) {
    r.interrupted_by = interrupt;  // stopped by the user: nothing recorded, a rerun runs it again
    r.error = fmt::format("interrupted (signal {})", interrupt);
    return r;
  }
  std::string log = (fs::path(job.run_dir) / "log.txt").string();
  r.error = WIFSIGNALED(status) ? fmt::format("killed by signal {}", WTERMSIG(status)) : first_error_line(log);
  if (WIFEXITED(status)) {  // a deterministic failure: recorded, so a resumed sweep does not repeat it
    const json f = {{"error", r.error}, {"exit_status", WEXITSTATUS(status)}};
    try {
      write_file_atomic((fs::path(job.run_dir) / "failed.json").string(), f.dump(1) + "\n");
    } catch (const ConfigError&) {
    }
  }
  return r;
}

/// The children running now, the jobs started so far and the tallies of the progress line.
struct RunnerState {
  std::vector<RunSummary> results;
  std::vector<Child> running;
  std::size_t next = 0, done = 0, failed = 0;
  std::size_t stopped = 0;  ///< of `done`, interrupted (stopped or never started): not finished
  /// What the progress line counts: the runs that finished, ok or failed.
  std::size_t finished() const { return done - stopped; }
};

// Starts jobs until opt.jobs children run (none once interrupted: the jobs not started are
// marked interrupted and counted done).
void start_jobs(const ExperimentOptions& opt, const std::vector<ExperimentJob>& jobs, const ChildSignals& children,
                const ProgressLine& progress, RunnerState& st) {
  const int max_jobs = std::max(1, opt.jobs);
  for (; st.next < jobs.size() && (children.interrupted_by() || int(st.running.size()) < max_jobs); ++st.next) {
    RunSummary& r = st.results[st.next];
    r.job = jobs[st.next];
    if (children.interrupted_by()) {
      r.interrupted_by = children.interrupted_by();
      r.error = "not started: interrupted";
      ++st.done;
      ++st.stopped;
      continue;
    }
    const pid_t pid = start_job(children, opt, r.job);
    if (pid < 0) {
      r.error = "could not start " + opt.self_exe;
      ++st.done;
      ++st.failed;
    } else {
      st.running.push_back({pid, st.next, now_s()});
      progress.show("running " + r.job.id, false, st.finished(), st.failed);
    }
  }
}

}  // namespace

std::vector<RunSummary> run_experiment(const ExperimentOptions& opt, const std::vector<ExperimentJob>& jobs) {
  RunnerState st;
  st.results.resize(jobs.size());
  ChildSignals children;  // SIGINT/SIGTERM: forwarded, and returned from only once every child is gone
  const ProgressLine progress(opt, jobs.size());
  while (st.done < jobs.size()) {
    start_jobs(opt, jobs, children, progress, st);
    if (st.running.empty()) continue;
    const ChildEvent ev = children.wait();
    if (ev.pid < 0) break;
    if (ev.pid == 0) {  // an interrupt: pass it on, then keep reaping until the children are gone
      std::vector<pid_t> pids;
      for (const auto& c : st.running) pids.push_back(c.pid);
      children.forward(pids);
      progress.show(fmt::format("interrupted (signal {}): stopping {} run(s)", ev.signal, pids.size()), true,
                    st.finished(), st.failed);
      continue;
    }
    auto it = std::find_if(st.running.begin(), st.running.end(), [&](const Child& c) { return c.pid == ev.pid; });
    if (it == st.running.end()) continue;
    const ExperimentJob& job = jobs[it->index];
    const bool exited_ok = WIFEXITED(ev.status) && WEXITSTATUS(ev.status) == 0;
    RunSummary r = exited_ok ? collect_finished_run(opt, job) : failed_job(job, ev.status, children.interrupted_by());
    r.wall_s = now_s() - it->start_s;
    st.results[it->index] = r;
    st.running.erase(it);
    ++st.done;
    st.stopped += r.interrupted_by ? 1 : 0;
    st.failed += r.ok || r.interrupted_by ? 0 : 1;
    progress.show((r.ok ? "done " : r.interrupted_by ? "interrupted " : "FAILED ") + job.id, true, st.finished(),
                  st.failed);
  }
  progress.end();
  return std::move(st.results);
}

int interruption_of(const std::vector<RunSummary>& runs) {
  for (const auto& r : runs)
    if (r.interrupted_by) return r.interrupted_by;
  return 0;
}

namespace {

/// The `none` run of the same model and hw, if it succeeded.
const RunSummary* baseline_of(const std::vector<RunSummary>& runs, const RunSummary& r) {
  for (const auto& b : runs)
    if (b.ok && b.job.strategy == "none" && b.job.model == r.job.model && b.job.hw == r.job.hw) return &b;
  return nullptr;
}

using npu::csv_field;

// A run's status column: ok, failed, or interrupted (stopped, or never started, by SIGINT/SIGTERM).
const char* status_word(const RunSummary& r) { return r.ok ? "ok" : r.interrupted_by ? "interrupted" : "failed"; }

// One run of the summary with its comparison against the `none` run of its model and hw.
struct SummaryRow {
  const RunSummary* r;
  VsNone vs;
  const RunSummary* baseline;  ///< the `none` run of its model and hw, or nullptr
};

// summary.json's entry of one run.
json summary_json_entry(const SummaryRow& row) {
  const RunSummary& r = *row.r;
  json e = {{"model", stem_of(r.job.model)},
            {"model_arg", r.job.model},
            {"hw", stem_of(r.job.hw)},
            {"hw_arg", r.job.hw},
            {"strategy", strategy_label(r.job.strategy)},
            {"strategy_arg", r.job.strategy},
            {"status", status_word(r)},
            {"run_dir", r.job.run_dir},
            {"earlier_run", r.earlier_run}};
  if (r.ok) {
    put_summary_figures(e, r, row.vs);
    put_pass_effects(e, r, row.baseline);
    e["warnings"] = r.warnings;  // the compile's, as in the run's run_summary.json
  } else {
    e["error"] = r.error;
  }
  if (r.verify) e["verify"] = verify_json(*r.verify);
  return e;
}

// Writes OUT/summary.csv and OUT/summary.json, one row per run.
void write_summary_csv_json(const std::string& out_dir, const std::vector<SummaryRow>& rows,
                            const std::vector<RunSummary>& runs) {
  std::ostringstream csv;
  const bool verified = std::any_of(runs.begin(), runs.end(), [](const RunSummary& r) { return r.verify.has_value(); });
  csv << kSummaryHeader << ",earlier_run" << (verified ? kVerifyCsvHeader : "") << "\n";
  json j = json::array();
  for (const auto& row : rows) {
    const RunSummary& r = *row.r;
    csv << fmt::format("{},{},{},{},", csv_field(stem_of(r.job.model)), csv_field(stem_of(r.job.hw)),
                       csv_field(strategy_label(r.job.strategy)), status_word(r));
    csv << summary_figures_csv(r, row.vs, r.ok);
    csv << csv_field(r.error) << "," << (r.earlier_run ? 1 : 0) << (verified ? verify_csv_fields(r) : "") << "\n";
    j.push_back(summary_json_entry(row));
  }
  // Written only now, each atomically (temp + rename): a failure leaves the previous files.
  write_file_atomic((fs::path(out_dir) / "summary.csv").string(), csv.str());
  write_file_atomic((fs::path(out_dir) / "summary.json").string(), npu::json_dump(j) + "\n");
}

// Appends one row per run to the Markdown table `md` and the text table `txt` (headers
// included); a row kept from an earlier run is starred.
void add_table_rows(const std::vector<SummaryRow>& rows, std::ostringstream& md, std::ostringstream& txt) {
  auto strategy_cell = [](const RunSummary& r) { return strategy_label(r.job.strategy) + (r.earlier_run ? " *" : ""); };
  md << "| model | hw | strategy | DDR read MB | DDR write MB | DDR total MB | x compulsory | latency ms | cycles | "
        "speedup | DDR saved % | MAC util % | DDR BW util % | energy mJ |\n";
  md << "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  std::vector<std::vector<std::string>> cells;
  for (const auto& row : rows) {
    const RunSummary& r = *row.r;
    if (!r.ok) {
      md << fmt::format("| {} | {} | {} | {}: {} ||||||||||\n", stem_of(r.job.model), stem_of(r.job.hw),
                        strategy_label(r.job.strategy), status_word(r), r.error);
      cells.push_back({stem_of(r.job.model), stem_of(r.job.hw), strategy_label(r.job.strategy),
                       std::string(r.interrupted_by ? "INTERRUPTED: " : "FAILED: ") + r.error});
      continue;
    }
    std::string speed = optional_number(row.vs.speedup, "{:.3f}x");
    std::string saved = saved_percent_text(row.vs.saved_pct);
    std::string energy = optional_number(r.energy_mj, "{:.3f}");
    std::string over = optional_number(r.ddr_over_compulsory(), "{:.2f}x");
    md << fmt::format("| {} | {} | {} | {} | {} | {} | {} | {:.3f} | {} | {} | {} | {:.1f} | {:.1f} | {} |\n",
                      stem_of(r.job.model), stem_of(r.job.hw), strategy_cell(r), mb_cell(r.ddr_read_mb),
                      mb_cell(r.ddr_write_mb), mb_cell(r.ddr_total_mb()), over, r.latency_ms, r.cycles, speed, saved,
                      100 * r.mac_utilisation, 100 * r.ddr_bw_utilisation, energy);
    cells.push_back(summary_text_cells(stem_of(r.job.model), stem_of(r.job.hw), strategy_cell(r), r, row.vs));
  }
  txt << format_text_table(summary_text_columns(), cells);
}

// Host placement is never silent: one line per run that used the host model.
std::string host_lines(const std::vector<SummaryRow>& rows) {
  std::string lines;
  for (const auto& row : rows) {
    const RunSummary& r = *row.r;
    if (!r.ok || r.host_nodes == 0) continue;
    lines += fmt::format("host: {} {} {}: {} node(s) on the host, {:.2f} % of MACs, {:.1f} % of latency{}{}\n",
                         stem_of(r.job.model), stem_of(r.job.hw), strategy_label(r.job.strategy), r.host_nodes,
                         100 * r.host_mac_share, 100 * r.host_time_share,
                         r.host_mac_share > 0.01 ? " (warning: more than 1 % of MACs)" : "",
                         r.host_unsized ? fmt::format(" (warning: {} tensor(s) sized only at run time: their host "
                                                      "work is not in these figures)", r.host_unsized)
                                        : std::string());
  }
  return lines;
}

// Lines under the table that count runs: each distinct line once, with "(N run(s))"; std::map
// keeps the order deterministic.
std::string counted_lines(const std::map<std::string, int>& runs_of) {
  std::string lines;
  for (const auto& [line, n] : runs_of) lines += fmt::format("{} ({} run(s))\n", line, n);
  return lines;
}

// A run's model as one name for all its phases: a zoo LLM's NAME:prefill=P and NAME:decode=T.
std::string model_family(const RunSummary& r) { return stem_of(r.job.model.substr(0, r.job.model.find(':'))); }

// The runs compiled for the configured SRAM only because the model is over the SRAM-plan
// ladder's 1e9 parameters (compiler.cpp): one line per hw and strategy, never only in log.txt.
std::string ladder_lines(const std::vector<SummaryRow>& rows) {
  std::map<std::string, int> runs_of;
  for (const auto& row : rows) {
    const RunSummary& r = *row.r;
    if (!r.ok || r.ladder_skipped_params == 0) continue;
    runs_of[fmt::format("sram: {} {} {}: compiled for the configured SRAM only, not its smaller-SRAM plans: the model's "
                        "{} parameters are more than the plan ladder's limit of 1e9",
                        model_family(r), stem_of(r.job.hw), strategy_label(r.job.strategy),
                        r.ladder_skipped_params)] += 1;
  }
  return counted_lines(runs_of);
}

// The runs with a CONV/GEMM whose params region crowds its tiles (compiler
// params_region_warning.hpp): one line per hw and strategy with the first such layer's warning,
// never only in log.txt (llama-3.2-1b's LM head on the edge preset ran 4-column tiles).
std::string params_region_lines(const std::vector<SummaryRow>& rows) {
  std::map<std::string, int> runs_of;
  for (const auto& row : rows) {
    const RunSummary& r = *row.r;
    if (!r.ok || r.params_region_warnings.empty()) continue;
    const std::string& w = r.params_region_warnings.front();
    const auto at = w.find("layer '");
    runs_of[fmt::format("sram: {} {} {}: {} layer(s) with a params region of a quarter of the SRAM or more; the first: {}",
                        model_family(r), stem_of(r.job.hw), strategy_label(r.job.strategy),
                        r.params_region_warnings.size(), at == std::string::npos ? w : w.substr(at))] += 1;
  }
  return counted_lines(runs_of);
}

// The runs with a precision key that applied to less than it says (compiler
// precision_warnings.hpp): one line per model, hw and warning, never only in log.txt (a W4A16
// ResNet-18 "saved" 1.3 % of its bytes with no word of its CONV weights staying fp16).
std::string precision_lines(const std::vector<SummaryRow>& rows) {
  std::map<std::string, int> runs_of;
  for (const auto& row : rows) {
    const RunSummary& r = *row.r;
    if (!r.ok) continue;
    for (const std::string& w : r.precision_warnings)
      runs_of[fmt::format("precision: {} {}: {}", model_family(r), stem_of(r.job.hw), w.substr(w.find("mac_array.")))] +=
          1;
  }
  return counted_lines(runs_of);
}

}  // namespace

std::string write_summary(const std::string& out_dir, const std::vector<RunSummary>& runs) {
  std::vector<SummaryRow> rows;
  for (const auto& r : runs) {
    const RunSummary* baseline = r.ok ? baseline_of(runs, r) : nullptr;
    rows.push_back(SummaryRow{&r, compare_with_none(r, baseline), baseline});
  }
  write_summary_csv_json(out_dir, rows, runs);

  // Text / Markdown table (the same rows); a row kept from an earlier run is starred.
  std::ostringstream md;
  std::ostringstream txt;
  if (const int sig = interruption_of(runs)) {
    const auto finished = std::count_if(runs.begin(), runs.end(), [](const RunSummary& r) { return !r.interrupted_by; });
    const std::string note = fmt::format(
        "INCOMPLETE: interrupted by signal {} ({}); {} of {} runs finished, the others have status 'interrupted'. "
        "Run the same command again to finish them: finished runs are reused, not run again.\n\n",
        sig, sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "signal", finished, runs.size());
    md << "**" << note.substr(0, 10) << "**" << note.substr(10);
    txt << note;
  }
  add_table_rows(rows, md, txt);
  // Each block of lines under the table, after a blank line, in both files; none when empty.
  const auto section = [&md, &txt](const std::string& lines) {
    if (lines.empty()) return;
    md << "\n" << lines;
    txt << "\n" << lines;
  };
  section(host_lines(rows));
  section(ladder_lines(rows));
  section(params_region_lines(rows));
  section(precision_lines(rows));
  std::vector<const RunSummary*> run_ptrs;
  for (const RunSummary& r : runs) run_ptrs.push_back(&r);
  section(compile_warning_lines(run_ptrs, model_family));
  section(bandwidth_lines(runs));
  section(strategy_effect_lines(runs, [&runs](const RunSummary& r) { return baseline_of(runs, r); }));
  section(fusion_regression_lines(run_ptrs));
  md << verify_table(runs, true);
  txt << verify_table(runs, false);
  if (std::any_of(runs.begin(), runs.end(), [](const RunSummary& r) { return r.earlier_run; }))
    section("* kept from an earlier experiment in this folder: not run now; its result in runs/<run id>/ is unchanged\n");
  write_file_atomic((fs::path(out_dir) / "summary.md").string(), md.str());
  return txt.str();
}

}  // namespace npu::sim
