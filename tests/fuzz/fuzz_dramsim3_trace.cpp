// libFuzzer target: the DRAMSim3 address-trace reader (`0xADDR READ|WRITE CYCLE`,
// npu::hw::TraceReader, hw_models/include/npu/hw/ddr/ddr_trace_file.hpp).
// Property: accepted stamps never decrease and stay <= kMaxTraceCycle.
#include "fuzz_trace_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return npu::fuzz::read_trace(data, size, npu::hw::TraceFormat::Dramsim3, "dramsim3");
}
