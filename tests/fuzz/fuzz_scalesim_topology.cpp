// libFuzzer target: the SCALE-Sim topology CSV reader (npu::sim::parse_scalesim_topology,
// sim/include/npu/sim/scalesim.hpp), format detected from the header as `npu scalesim` does,
// then our compute model on what it read (the reader's size limits exist for it) on a 4x4
// and a 128x128 array.
#include "fuzz_common.hpp"
#include "npu/sim/scalesim.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return npu::fuzz::run_one([&] {
    const auto layers = npu::sim::parse_scalesim_topology(npu::fuzz::as_text(data, size), "fuzz.csv");
    for (const int side : {4, 128}) {
      npu::sim::ScaleSimConfig cfg;
      cfg.source = "fuzz.cfg";
      cfg.array_height = cfg.array_width = side;
      for (auto df : {npu::Dataflow::OutputStationary, npu::Dataflow::WeightStationary, npu::Dataflow::InputStationary}) {
        cfg.dataflow = df;
        (void)npu::sim::scalesim_csv(npu::sim::scalesim_compute(layers, cfg));
      }
    }
  });
}
