// libFuzzer target: the SCALE-Sim .cfg reader (npu::compiler::parse_scalesim_config,
// compiler/include/npu/compiler/frontend/scalesim/config.hpp), then our compute model
// (npu/sim/run/scalesim.hpp) with the config it read on a small topology (a conv layer, a
// strided conv, a depthwise layer and a GEMM).
#include "fuzz_common.hpp"
#include "npu/compiler/frontend/scalesim/config.hpp"
#include "npu/compiler/frontend/scalesim/topology.hpp"
#include "npu/sim/run/scalesim.hpp"

namespace {
const std::vector<npu::compiler::ScaleSimLayer>& layers() {
  static const auto l = [] {
    auto conv = npu::compiler::parse_scalesim_topology(
        "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\n"
        "Conv1, 224, 224, 7, 7, 3, 64, 2,\n"
        "Conv2, 56, 56, 3, 3, 64, 64, 1,\n"
        "DP1, 28, 28, 3, 3, 4, 1, 1,\n",
        "fixed.csv");
    const auto gemm = npu::compiler::parse_scalesim_topology("Layer, M, N, K,\nfc, 1, 1000, 2048,\n", "fixed-gemm.csv");
    conv.insert(conv.end(), gemm.begin(), gemm.end());
    return conv;
  }();
  return l;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return npu::fuzz::run_one([&] {
    const auto cfg = npu::compiler::parse_scalesim_config(npu::fuzz::as_text(data, size), "fuzz.cfg");
    (void)npu::sim::scalesim_csv(npu::sim::scalesim_compute(layers(), cfg));
  });
}
