// Compiler speed (Google Benchmark): building the ResNet-50 zoo graph, compiling it for each
// built-in strategy on the edge preset (issue target: under 1 s per strategy), and importing
// the 102 MB ResNet-50 ONNX file when ../shared/models is present.
// Run: build/tests/bench/bench_compiler
#include <benchmark/benchmark.h>

#include <sys/resource.h>

#include <cstdlib>
#include <filesystem>

#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/frontend/model_loader.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace {

void BM_ZooResNet50Build(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(npu::compiler::load_model("resnet50"));
}
BENCHMARK(BM_ZooResNet50Build)->Unit(benchmark::kMillisecond);

void BM_CompileResNet50(benchmark::State& state, const char* strategy) {
  const auto graph = npu::compiler::load_model("resnet50");
  const auto hw = npu::load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  const auto s = npu::compiler::builtin_strategy(strategy);
  for (auto _ : state) benchmark::DoNotOptimize(npu::compiler::compile(graph, hw, s));
}
// Wall time (UseRealTime): compile() builds the smaller SRAM sizes' plans on several threads.
BENCHMARK_CAPTURE(BM_CompileResNet50, none, "none")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_CompileResNet50, conv_bn_act, "conv-bn-act")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_CompileResNet50, residual, "residual")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_CompileResNet50, depth_first, "depth-first")->Unit(benchmark::kMillisecond)->UseRealTime();

// The other SRAM size for the depth-first goals: the edge preset at 4 MiB (more
// candidate stacks fit, and seven sizes, 64 KiB .. 4 MiB, are compiled).
void BM_CompileResNet50DepthFirst4MiB(benchmark::State& state) {
  const auto graph = npu::compiler::load_model("resnet50");
  auto hw = npu::load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  hw.sram.capacity_bytes = 4u << 20;
  const auto s = npu::compiler::builtin_strategy("depth-first");
  for (auto _ : state) benchmark::DoNotOptimize(npu::compiler::compile(graph, hw, s));
}
BENCHMARK(BM_CompileResNet50DepthFirst4MiB)->Unit(benchmark::kMillisecond)->UseRealTime();

// The SRAM-plan ladder (issue 29 item 4, docs/performance.md): ResNet-50 on the edge preset
// (1 MiB: five sizes, 64 KiB .. 1 MiB) compiled for the configured SRAM alone (arg 0), with
// the full ladder, every size to the end (arg 1), and with the fast ladder, the sizes below
// S/2 stopped once ranked below S/2's plan (arg 2, the default); one thread, so the time is
// the CPU the ladder costs. Strategy: residual (second arg 0); 1 would be depth-first, which
// keeps the full ladder (stacks and residency shorten a program after generation).
void BM_CompileResNet50Ladder(benchmark::State& state) {
  const auto graph = npu::compiler::load_model("resnet50");
  const auto hw = npu::load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  const auto s = npu::compiler::builtin_strategy(state.range(1) == 1 ? "depth-first" : "residual");
  npu::compiler::CompileOptions o;
  o.plan_threads = 1;
  o.smaller_sram_plans = state.range(0) != 0;
  o.full_sram_ladder = state.range(0) == 1;
  state.SetLabel(std::string(state.range(0) == 0 ? "single size" : state.range(0) == 1 ? "full ladder" : "fast ladder") +
                 ", " + s.name);
  for (auto _ : state) benchmark::DoNotOptimize(npu::compiler::compile(graph, hw, s, o));
}
BENCHMARK(BM_CompileResNet50Ladder)
    ->Args({0, 0})->Args({1, 0})->Args({2, 0})
    ->Unit(benchmark::kMillisecond);

void BM_ImportResNet50Onnx(benchmark::State& state) {
  const std::string path = std::string(NPU_SOURCE_DIR) + "/../shared/models/resnet50_bn.onnx";
  if (!std::filesystem::exists(path)) {
    state.SkipWithError("../shared/models/resnet50_bn.onnx is absent");
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(npu::compiler::load_model(path));
}
BENCHMARK(BM_ImportResNet50Onnx)->Unit(benchmark::kMillisecond)->Iterations(3);

// Import + compile (conv-bn-act, edge preset) of any ONNX file named by $NPU_BENCH_ONNX, e.g.
// the 553 MB vgg16_bn export of ../shared/models/export_torchvision.py (issue 9 target: under
// 5 s and 2 GB). Reports the process's peak resident memory (getrusage ru_maxrss, KiB) as a
// counter; run it alone (--benchmark_filter=ImportCompile) so the peak is this model's.
void BM_ImportCompileOnnx(benchmark::State& state) {
  const char* path = std::getenv("NPU_BENCH_ONNX");
  if (!path || !std::filesystem::exists(path)) {
    state.SkipWithError("set NPU_BENCH_ONNX to an .onnx file (e.g. vgg16_bn-bn-op13.onnx)");
    return;
  }
  const auto hw = npu::load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  const auto s = npu::compiler::builtin_strategy("conv-bn-act");
  for (auto _ : state) benchmark::DoNotOptimize(npu::compiler::compile(npu::compiler::load_model(path), hw, s));
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  state.counters["peak_rss_MiB"] = double(ru.ru_maxrss) / 1024.0;
}
BENCHMARK(BM_ImportCompileOnnx)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
