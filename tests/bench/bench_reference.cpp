// Reference interpreter speed (Google Benchmark): the fp32 run of the real models in
// ../shared/models on their stored input, on 1 and 2 threads (issue 10 asks for ResNet-50 in
// a few seconds on 2 cores). Loading the model is outside the timed loop. Prints the time per
// op type of the last run as counters (seconds).
// Run: build/tests/bench/bench_reference [--benchmark_filter=ResNet]
#include <benchmark/benchmark.h>

#include <filesystem>

#include "npu/compiler/frontend/model_loader.hpp"
#include "npu/compiler/reference/reference_interpreter.hpp"
#include "npu/compiler/frontend/tensor_io.hpp"

namespace {

void BM_Reference(benchmark::State& state, const char* model) {
  const std::string dir = std::string(NPU_SOURCE_DIR) + "/../shared/models/";
  const std::string path = dir + model + ".onnx";
  if (!std::filesystem::exists(path)) {
    state.SkipWithError((path + " is absent").c_str());
    return;
  }
  const auto g = npu::compiler::load_model(path);
  const auto input = npu::compiler::read_tensor_pb(dir + model + "_data/test_data_set_0/input_0.pb");
  npu::compiler::ReferenceOptions o;
  o.threads = static_cast<int>(state.range(0));
  std::map<std::string, double> per_op;
  o.seconds_per_op = &per_op;
  for (auto _ : state) {
    per_op.clear();
    benchmark::DoNotOptimize(npu::compiler::run_reference(g, {{g.inputs[0], input}}, o));
  }
  for (const auto& [op, s] : per_op) state.counters[op] = s;
}
BENCHMARK_CAPTURE(BM_Reference, MobileNetV2, "mobilenet_v2_bn")->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_Reference, ResNet50, "resnet50_bn")->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_Reference, YoloV5s, "yolov5s_bn")->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
