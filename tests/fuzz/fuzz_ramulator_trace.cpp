// libFuzzer target: the Ramulator address-trace reader (`LD|ST ADDR`, ADDR hex after 0x or decimal,
// npu::hw::TraceReader, hw_models/include/npu/hw/ddr/ddr_trace_file.hpp).
#include "fuzz_trace_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return npu::fuzz::read_trace(data, size, npu::hw::TraceFormat::Ramulator, "ramulator");
}
