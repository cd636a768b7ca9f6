// Sweep throughput (Google Benchmark): planning the 1,080-cell sweep of sweep_1000.yaml in the
// parent (spec, 72 configs, keys), and running a share of it with `npu sweep` at -j1 and -j2.
// Counters: cells_per_s (wall clock) and cpu_s_per_cell (user + system time of the children,
// which does not depend on what else the machine runs). docs/sweep.md, "Throughput".
// Run: build/tests/bench/bench_sweep [--benchmark_filter=Run]
//   NPU_BENCH_SWEEP_SHARDS=K runs shard 0/K of the cells (default 20: 54 cells; 1: all 1,080).
#include <benchmark/benchmark.h>

#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "npu/sim/experiment/cell_plan.hpp"
#include "npu/sim/experiment/sweep_configs.hpp"
#include "npu/sim/experiment/sweep_spec.hpp"

namespace {

namespace fs = std::filesystem;
const std::string kSpec = std::string(NPU_SOURCE_DIR) + "/tests/bench/sweep_1000.yaml";

double children_cpu_s() {
  rusage ru{};
  getrusage(RUSAGE_CHILDREN, &ru);
  return double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + 1e-6 * double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

void BM_SweepPlan(benchmark::State& state) {
  std::size_t cells = 0;
  for (auto _ : state) {
    const auto plan = npu::sim::plan_sweep(npu::sim::load_sweep_spec(kSpec));
    cells = plan.cells.size();
    benchmark::DoNotOptimize(plan);
  }
  state.counters["cells"] = double(cells);
}
BENCHMARK(BM_SweepPlan)->Unit(benchmark::kMillisecond);

// Planning many config points (1 model x 1 strategy: a cell per config), as a 10^6-cell spec
// does: 3,000 points of the edge preset (10 SRAM sizes x 10 queue depths x 10 DMA windows x 3
// array heights). Counter: config cells planned per second (docs/performance.md, "Sweep planning").
void BM_SweepPlanConfigs(benchmark::State& state) {
  const fs::path spec = fs::temp_directory_path() / ("npu-bench-plan-" + std::to_string(getpid()) + ".yaml");
  std::ofstream(spec) << "base: edge-npu-ddr4\naxes:\n"
                      << "  sram.capacity: [1MiB, 2MiB, 3MiB, 4MiB, 5MiB, 6MiB, 7MiB, 8MiB, 9MiB, 10MiB]\n"
                      << "  ddr.queue_depth: [16, 17, 18, 19, 20, 21, 22, 23, 24, 25]\n"
                      << "  dma.max_outstanding: [8, 9, 10, 11, 12, 13, 14, 15, 16, 17]\n"
                      << "  mac_array.rows: [16, 32, 64]\nmodels: [resnet18]\nstrategies: [none]\n";
  const npu::sim::SweepSpec s = npu::sim::load_sweep_spec(spec.string());
  std::size_t cells = 0;
  for (auto _ : state) {
    const auto configs = npu::sim::plan_configs(s);
    cells += configs.size();
    benchmark::DoNotOptimize(configs);
  }
  fs::remove(spec);
  state.counters["cells_per_s"] = benchmark::Counter(double(cells), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SweepPlanConfigs)->Unit(benchmark::kMillisecond)->UseRealTime();

// A spec of 10^5 (5 axes of 10) or 10^6 (6 axes) config points of the edge preset, one model
// and one strategy: a cell per point, as issue 27's 10^6-cell spec.
fs::path points_spec(std::size_t points) {
  const fs::path spec = fs::temp_directory_path() / ("npu-bench-points-" + std::to_string(getpid()) + ".yaml");
  std::ofstream out(spec);
  out << "base: edge-npu-ddr4\naxes:\n"
      << "  sram.capacity: [1MiB, 2MiB, 3MiB, 4MiB, 5MiB, 6MiB, 7MiB, 8MiB, 9MiB, 10MiB]\n"
      << "  ddr.queue_depth: [16, 17, 18, 19, 20, 21, 22, 23, 24, 25]\n"
      << "  dma.max_outstanding: [8, 9, 10, 11, 12, 13, 14, 15, 16, 17]\n"
      << "  dma.requests_per_cycle: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n"
      << "  act_unit.lanes: [16, 32, 48, 64, 80, 96, 112, 128, 144, 160]\n";
  if (points >= 1000000) out << "  sram.latency_cycles: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n";
  out << "models: [resnet18]\nstrategies: [none]\n";
  return spec;
}

// The plan as `npu sweep` made it before streaming (main at 96684f7): every config cell
// (resolved YAML and its nameless copy) in memory, every planned cell in memory, plan.json
// built as one ordered_json and dumped.
void plan_in_memory(const npu::sim::SweepSpec& s, const fs::path& dir) {
  const auto configs = npu::sim::plan_configs(s);
  const npu::sim::Plan plan = npu::sim::plan_sweep(s, configs);
  nlohmann::ordered_json j;
  j["format"] = "npu-plan 1";
  j["kind"] = plan.kind;
  j["tool"] = plan.tool;
  j["axes"] = plan.axes;
  nlohmann::ordered_json cells = nlohmann::ordered_json::array();
  for (const auto& c : plan.cells) {
    nlohmann::ordered_json e;
    e["key"] = c.key, e["group"] = c.group, e["model"] = c.model, e["model_arg"] = c.model_arg, e["hw"] = c.hw;
    e["hw_arg"] = c.hw_arg, e["strategy"] = c.strategy, e["strategy_arg"] = c.strategy_arg;
    nlohmann::ordered_json axes = nlohmann::ordered_json::object();
    for (const auto& [p, v] : c.axes) axes[p] = v;
    e["axes"] = axes;
    e["run_dir"] = c.run_dir;
    cells.push_back(e);
  }
  j["cells"] = cells;
  std::ofstream(dir / "plan.json") << j.dump(1) << "\n";
}

// The plan as `npu sweep` makes it now: config points (name, key state, validity) only, the
// cells streamed to plan.json one at a time.
void plan_streamed(const npu::sim::SweepSpec& s, const fs::path& dir) {
  const auto points = npu::sim::plan_config_points(s);
  npu::sim::PlanWriter w(dir.string(), npu::sim::plan_sweep_header(s));
  npu::sim::plan_sweep_cells(s, points, [&](const npu::sim::PlannedCell& c, std::size_t) { w.add(c); });
  w.commit();
}

// Planning 10^5 or 10^6 points to plan.json (range(0)), in memory as before (range(1) = 0) or
// streamed (1). Counters: cells_per_s and the process's peak RSS in MB (getrusage: run one
// case per process, --benchmark_filter, for a peak of its own; docs/performance.md "Sweep
// planning").
void BM_SweepPlanPoints(benchmark::State& state) {
  const std::size_t points = std::size_t(state.range(0));
  const fs::path spec = points_spec(points);
  const fs::path dir = fs::temp_directory_path() / ("npu-bench-points-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const npu::sim::SweepSpec s = npu::sim::load_sweep_spec(spec.string());
  std::size_t cells = 0;
  for (auto _ : state) {
    if (state.range(1) == 0) plan_in_memory(s, dir);
    else plan_streamed(s, dir);
    cells += points;
  }
  state.counters["plan_mb"] = double(fs::file_size(dir / "plan.json")) / 1e6;
  fs::remove_all(dir);
  fs::remove(spec);
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  state.counters["peak_rss_mb"] = double(ru.ru_maxrss) / 1024.0;
  state.counters["cells_per_s"] = benchmark::Counter(double(cells), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SweepPlanPoints)
    ->Args({100000, 0})
    ->Args({100000, 1})
    ->Args({1000000, 0})
    ->Args({1000000, 1})
    ->Unit(benchmark::kSecond)
    ->UseRealTime()
    ->Iterations(1);

void BM_SweepRun(benchmark::State& state) {
  const int jobs = int(state.range(0));
  const char* k = std::getenv("NPU_BENCH_SWEEP_SHARDS");
  const std::string shards = k ? k : "20";
  const fs::path out = fs::temp_directory_path() / ("npu-bench-sweep-" + std::to_string(getpid()));
  std::size_t cells = 0;
  double cpu = 0;
  for (auto _ : state) {
    state.PauseTiming();
    fs::remove_all(out);
    const double cpu0 = children_cpu_s();
    state.ResumeTiming();
    const std::string cmd = std::string("'") + NPU_TOOL_PATH + "' sweep '" + kSpec + "' --out '" + out.string() +
                            "' -j " + std::to_string(jobs) + " --shard 0/" + shards + " > /dev/null 2>&1";
    const int rc = std::system(cmd.c_str());
    state.PauseTiming();
    cpu += children_cpu_s() - cpu0;
    if (rc != 0) {  // a failed cell or a bad build: no throughput to report
      state.SkipWithError(("npu sweep failed (see " + out.string() + "/summary.csv): " + cmd).c_str());
      return;
    }
    const std::size_t n = npu::sim::read_plan(out.string()).cells.size(), kk = std::size_t(std::stoi(shards));
    cells += (n + kk - 1) / kk;  // shard 0/K holds cells 0, K, 2K, ...: ceil(n / K)
    state.ResumeTiming();
  }
  fs::remove_all(out);
  state.counters["cells_per_s"] = benchmark::Counter(double(cells), benchmark::Counter::kIsRate);
  state.counters["cpu_s_per_cell"] = cpu / double(cells);
}
BENCHMARK(BM_SweepRun)->Arg(1)->Arg(2)->Unit(benchmark::kSecond)->UseRealTime()->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
