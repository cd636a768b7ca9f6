// Timing core of the activation (vector) unit (no SystemC) for stand-alone ACT, ELTWISE and
// POOL instructions: `lanes` elements per core cycle plus the op's pipeline latency; the
// SystemC wrapper further bounds it by SRAM bandwidth (operands stream SRAM -> SRAM).
//   ACT:           passes x ceil(elems / lanes); passes = isa::act_passes(op): 3 for softmax
//                  (max; exp + sum; scale) and layer_norm (mean; variance; normalise), else 1
//   ELTWISE:       ceil(elems / lanes)   (also with a broadcast b: one pass over elems)
//   POOL max/avg:  ceil(c*h_out*w_out*kh*kw / lanes)   (one window element per lane-cycle)
//   POOL global:   ceil(c*h_in*w_in / lanes)
// Fused epilogues are costed with the MAC tile (mac_array_timing.hpp).
#pragma once

#include <cstdint>
#include <string>

#include "npu/hw_config/hw_config.hpp"
#include "npu/isa/instruction.hpp"

namespace npu::hw {

struct VectorCost {
  std::uint64_t stream_cycles = 0;   ///< passes x ceil(work elements / lanes)
  std::uint64_t latency_cycles = 0;  ///< pipeline latency of the op
  std::uint64_t elements = 0;        ///< elements processed (inputs consumed)
  std::uint64_t cycles() const { return stream_cycles + latency_cycles; }
};

/// Cost of ACT / ELTWISE / POOL `inst`. Throws std::invalid_argument for other opcodes or
/// non-positive shapes.
VectorCost vector_cost(const isa::Instruction& inst, const HwConfig& hw);

}  // namespace npu::hw
