// libFuzzer target: the SCALE-Sim topology CSV reader (npu::compiler::parse_scalesim_topology,
// compiler/include/npu/compiler/frontend/scalesim/topology.hpp), format detected from the
// header as `npu scalesim` does, then our compute model (npu/sim/run/scalesim.hpp) on what it
// read (the reader's size limits exist for it).
#include "fuzz_common.hpp"
#include "npu/compiler/frontend/scalesim/config.hpp"
#include "npu/compiler/frontend/scalesim/topology.hpp"
#include "npu/sim/run/scalesim.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return npu::fuzz::run_one([&] {
    const auto layers = npu::compiler::parse_scalesim_topology(npu::fuzz::as_text(data, size), "fuzz.csv");
    // One of six arrays per input (4x4 or 128x128; OS, WS, IS), chosen by the input's size.
    constexpr npu::Dataflow kFlows[] = {npu::Dataflow::OutputStationary, npu::Dataflow::WeightStationary,
                                        npu::Dataflow::InputStationary};
    npu::compiler::ScaleSimConfig cfg;
    cfg.source = "fuzz.cfg";
    cfg.array_height = cfg.array_width = size % 2 ? 128 : 4;
    cfg.dataflow = kFlows[(size / 2) % 3];
    (void)npu::sim::scalesim_csv(npu::sim::scalesim_compute(layers, cfg));
  });
}
