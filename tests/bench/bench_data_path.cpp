// Cost of functional mode (docs/functional.md, "Data path"): tiny_convnet.onnx compiled for
// the edge preset with an fp32 MAC array, simulated without data and with data. Each run is
// a forked child (SystemC elaborates once per process) reporting its wall time. The timing
// path without data is measured at scale by bench_npu (1 M instructions).
#include <benchmark/benchmark.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>

#include "npu/compiler/frontend/model_loader.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "npu/sim/run/run_with_data.hpp"

namespace {

using namespace npu;

double run_forked(bool with_data, const std::string& strategy) {
  int fds[2];
  if (pipe(fds) != 0) std::abort();
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    HwConfig hw = load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
    hw.mac_array.dtype = DType::Fp32;
    const compiler::Graph g = compiler::load_model(std::string(NPU_SOURCE_DIR) + "/tests/data/tiny_convnet.onnx");
    const compiler::CompileResult c = compiler::compile(g, hw, compiler::builtin_strategy(strategy));
    std::vector<float> x(3 * 32 * 32);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = float(i % 17) / 17.0f - 0.5f;
    const auto t0 = std::chrono::steady_clock::now();
    if (with_data) sim::run_with_data(c, hw, {{g.inputs[0], x}});
    else sim::run_program(c.program, hw);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (write(fds[1], &s, sizeof s) != sizeof s) _exit(2);
    _exit(0);
  }
  close(fds[1]);
  double s = -1;
  if (read(fds[0], &s, sizeof s) != sizeof s) s = -1;
  close(fds[0]);
  int st = 0;
  waitpid(pid, &st, 0);
  return s;
}

void bench(benchmark::State& state, bool with_data, const char* strategy) {
  for (auto _ : state) {
    const double s = run_forked(with_data, strategy);
    if (s < 0) {
      state.SkipWithError("simulation child failed");
      return;
    }
    state.SetIterationTime(s);
  }
}

void BM_TinyConvnet_NoData(benchmark::State& s) { bench(s, false, "none"); }
void BM_TinyConvnet_WithData(benchmark::State& s) { bench(s, true, "none"); }
void BM_TinyConvnetFused_NoData(benchmark::State& s) { bench(s, false, "conv-bn-act"); }
void BM_TinyConvnetFused_WithData(benchmark::State& s) { bench(s, true, "conv-bn-act"); }

}  // namespace

BENCHMARK(BM_TinyConvnet_NoData)->UseManualTime()->Iterations(5)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TinyConvnet_WithData)->UseManualTime()->Iterations(5)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TinyConvnetFused_NoData)->UseManualTime()->Iterations(5)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TinyConvnetFused_WithData)->UseManualTime()->Iterations(5)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
