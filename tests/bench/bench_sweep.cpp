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
