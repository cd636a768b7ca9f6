// int8 execution with data on the real networks (issue 10 "Speed": ResNet-50 int8 executed with
// data in <= 15 s on 2 cores, MobileNetV2 <= 2 s). Each iteration is a forked child (SystemC
// elaborates once per process) that loads the model from ../shared/models, quantises it (PTQ,
// 2 seeded calibration samples, min/max), compiles it for the edge preset (int8) and runs it
// with data, reporting two wall times: the simulation with data alone (the figure the goal is
// about: manual time) and everything from loading the model on (counter `total_s`). A model
// that is absent skips with a message.
#include <benchmark/benchmark.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>

#include "npu/compiler/frontend/model_loader.hpp"
#include "npu/compiler/quantize/calibration.hpp"
#include "npu/compiler/quantize/ptq.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "npu/sim/run/run_with_data.hpp"

namespace {

using namespace npu;

struct Times {
  double sim_s = -1, total_s = -1;
};

std::string model_path(const char* model) {
  return std::string(NPU_SOURCE_DIR) + "/../shared/models/" + model + ".onnx";
}

Times measure(const char* model, const char* strategy);

Times run_forked(const char* model, const char* strategy) {
  int fds[2];
  if (pipe(fds) != 0) std::abort();
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    Times t;
    try {
      t = measure(model, strategy);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s %s: %s\n", model, strategy, e.what());
    }
    if (write(fds[1], &t, sizeof t) != sizeof t) _exit(2);
    _exit(0);
  }
  close(fds[1]);
  Times t;
  if (read(fds[0], &t, sizeof t) != sizeof t) t = Times{};
  close(fds[0]);
  int st = 0;
  waitpid(pid, &st, 0);
  return t;
}

Times measure(const char* model, const char* strategy) {
  {
    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    const HwConfig hw = load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
    const compiler::Graph g = compiler::load_model(model_path(model));
    const compiler::Strategy st = compiler::builtin_strategy(strategy);
    const compiler::Graph qg = compiler::quantize_graph(g, st, compiler::generate_calibration(g, 1, 2)).graph;
    const compiler::CompileResult c = compiler::compile(qg, hw, st);
    std::map<std::string, std::vector<float>> input;
    const std::vector<compiler::CalibSample> samples = compiler::generate_calibration(g, 7, 1);
    for (const auto& [name, t] : samples.at(0)) input[name] = t.f;
    const auto t1 = clock::now();
    const sim::DataRunResult r = sim::run_with_data(c, hw, input);
    const auto t2 = clock::now();
    Times t;
    t.sim_s = r.outputs_int8.empty() ? -1 : std::chrono::duration<double>(t2 - t1).count();
    t.total_s = std::chrono::duration<double>(t2 - t0).count();
    return t;
  }
}

void bench(benchmark::State& state, const char* model, const char* strategy) {
  if (!std::ifstream(model_path(model)).good()) {
    state.SkipWithError((model_path(model) + " is absent (../shared/models beside the checkout)").c_str());
    return;
  }
  double total = 0;
  for (auto _ : state) {
    const Times t = run_forked(model, strategy);
    if (t.sim_s < 0) {
      state.SkipWithError("int8 run failed (the child printed why, or crashed)");
      return;
    }
    state.SetIterationTime(t.sim_s);
    total += t.total_s;
  }
  state.counters["total_s"] = benchmark::Counter(total / double(state.iterations()));
}

}  // namespace

BENCHMARK_CAPTURE(bench, MobileNetV2_int8_conv_bn_act, "mobilenet_v2_bn", "conv-bn-act")
    ->UseManualTime()->Iterations(2)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bench, MobileNetV2_int8_none, "mobilenet_v2_bn", "none")
    ->UseManualTime()->Iterations(2)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bench, ResNet50_int8_conv_bn_act, "resnet50_bn", "conv-bn-act")
    ->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bench, ResNet50_int8_none, "resnet50_bn", "none")
    ->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
