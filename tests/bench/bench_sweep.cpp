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

#include "npu/sim/experiment/cell_plan.hpp"
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
