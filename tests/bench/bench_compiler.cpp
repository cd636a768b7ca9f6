// Compiler speed (Google Benchmark): building the ResNet-50 zoo graph, compiling it for each
// built-in strategy on the edge preset (issue target: under 1 s per strategy), and importing
// the 102 MB ResNet-50 ONNX file when ../shared/models is present.
// Run: build/tests/bench/bench_compiler
#include <benchmark/benchmark.h>

#include <filesystem>

#include "npu/compiler/compiler.hpp"
#include "npu/compiler/model_loader.hpp"
#include "npu/isa/hw_config.hpp"

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
BENCHMARK_CAPTURE(BM_CompileResNet50, none, "none")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CompileResNet50, conv_bn_act, "conv-bn-act")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CompileResNet50, residual, "residual")->Unit(benchmark::kMillisecond);

void BM_ImportResNet50Onnx(benchmark::State& state) {
  const std::string path = std::string(NPU_SOURCE_DIR) + "/../shared/models/resnet50_bn.onnx";
  if (!std::filesystem::exists(path)) {
    state.SkipWithError("../shared/models/resnet50_bn.onnx is absent");
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(npu::compiler::load_model(path));
}
BENCHMARK(BM_ImportResNet50Onnx)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
