// The long differential run: random graphs (tests/compiler/random_graphs.hpp) compiled under
// every built-in strategy and checked (random_graphs_check.hpp), seeds 1..N. Reports graphs
// checked and graphs per second; stops with an error naming the first failing seed.
// Run: build/tests/bench/bench_random_graphs [--benchmark_filter=...]; the count is the Arg.
#include <benchmark/benchmark.h>

#include "npu/hw_config/hw_config.hpp"
#include "random_graphs_check.hpp"

namespace {

void BM_RandomGraphsDifferential(benchmark::State& state) {
  const auto hw = npu::load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  const auto n = std::uint32_t(state.range(0));
  std::uint64_t checked = 0;
  for (auto _ : state) {
    for (std::uint32_t seed = 1; seed <= n; ++seed) {
      const std::string problem = npu::compiler::testing::check_random_graph(seed, hw);
      if (!problem.empty()) {
        state.SkipWithError(problem.c_str());
        return;
      }
      ++checked;
    }
  }
  state.counters["graphs"] = double(checked);
  state.counters["graphs_per_s"] = benchmark::Counter(double(checked), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_RandomGraphsDifferential)->Arg(10000)->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace

BENCHMARK_MAIN();
