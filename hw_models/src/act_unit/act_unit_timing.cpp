#include "npu/hw/act_unit/act_unit_timing.hpp"

#include <algorithm>
#include <stdexcept>

#include "npu/hw/mac_array/mac_array_timing.hpp"

namespace npu::hw {

VectorCost vector_cost(const isa::Instruction& inst, const HwConfig& hw) {
  const std::uint64_t lanes = std::uint64_t(hw.act_unit.lanes > 0 ? hw.act_unit.lanes : 1);
  VectorCost c;
  std::uint64_t work = 0;
  std::uint64_t passes = 1;
  switch (inst.op) {
    case isa::Opcode::Act: {
      const auto& p = std::get<isa::ActParams>(inst.params);
      work = c.elements = p.elems;
      // A residual input (`res`) is added in the first pass as the elements stream in: no
      // extra pass (docs/timing.md); its SRAM read is one more operand (isa::sram_operands).
      passes = std::uint64_t(isa::act_passes(p.op));
      c.latency_cycles = std::uint64_t(act_latency_cycles(hw.act_unit, isa::to_string(p.op)));
      break;
    }
    case isa::Opcode::Eltwise: {
      const auto& p = std::get<isa::EltwiseParams>(inst.params);
      work = c.elements = p.elems;
      c.latency_cycles = std::uint64_t(act_latency_cycles(hw.act_unit, isa::to_string(p.op)));
      break;
    }
    case isa::Opcode::Pool: {
      const auto& p = std::get<isa::PoolParams>(inst.params);
      if (p.c <= 0 || p.h_in <= 0 || p.w_in <= 0 || p.h_out() <= 0 || p.w_out() <= 0) {
        throw std::invalid_argument("POOL: non-positive shape");
      }
      c.elements = std::uint64_t(p.c) * p.h_in * p.w_in;
      work = p.op == isa::PoolOp::GlobalAvg ? c.elements
                                            : std::uint64_t(p.c) * p.h_out() * p.w_out() * p.kh * p.kw;
      // avg_pad is avg with another divisor: the same datapath, so `avg`'s latency unless the
      // config gives avg_pad one of its own.
      std::string key = isa::to_string(p.op);
      if (p.op == isa::PoolOp::AvgPad && !hw.act_unit.op_latency_cycles.count(key)) key = "avg";
      c.latency_cycles = std::uint64_t(act_latency_cycles(hw.act_unit, key));
      break;
    }
    case isa::Opcode::Move: {
      // A copy: one streaming pass over the elements moved, with the identity op's latency;
      // with `zero`, the pass writes the larger of the zeroed range and the elements moved.
      const auto& p = std::get<isa::MoveParams>(inst.params);
      c.elements = p.elems();
      work = std::max<std::uint64_t>(c.elements, p.zero);
      c.latency_cycles = std::uint64_t(act_latency_cycles(hw.act_unit, isa::to_string(isa::ActOp::Identity)));
      break;
    }
    default:
      throw std::invalid_argument(std::string("vector_cost: not a vector-unit opcode: ") + isa::to_string(inst.op));
  }
  c.stream_cycles = passes * ((work + lanes - 1) / lanes);
  return c;
}

}  // namespace npu::hw
