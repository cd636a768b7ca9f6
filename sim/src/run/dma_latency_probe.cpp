#include "npu/sim/run/dma_latency_probe.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "npu/isa/assembly.hpp"
#include "npu/sim/run/run_program.hpp"

namespace npu::sim {

DmaLatencyProbe probe_loaded_dma_latency(const HwConfig& hw) {
  DmaLatencyProbe p;
  p.bytes = std::min<std::uint64_t>(256 * 1024, hw.sram.capacity_bytes);
  const isa::Program program = isa::read_program(
      fmt::format(".npuasm 1\n.program name=dma-latency-probe strategy=none dtype={}\n"
                  ".tensor w kind=weight ddr=0x0 bytes={}\nLOAD layer=probe tensor=w ddr=0x0 sram=0x0 extent={}\n",
                  to_string(hw.mac_array.dtype), p.bytes, p.bytes),
      "<dma latency probe>");
  const RunResult r = run_program(program, hw);
  p.present = r.ddr_model.present;
  p.mean_read_latency_ns = r.ddr_model.mean_read_latency_ns;
  p.p99_read_latency_ns = r.ddr_model.p99_read_latency_ns;
  p.achieved_gbps = r.total_ns > 0 ? double(p.bytes) / r.total_ns : 0;
  return p;
}

}  // namespace npu::sim
