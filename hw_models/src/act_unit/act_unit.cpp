#include "npu/hw/act_unit/act_unit.hpp"

#include <algorithm>

#include "npu/hw/mac_array/mac_array.hpp"

namespace npu::hw {

ActUnit::ActUnit(sc_core::sc_module_name name, const HwConfig& hw, DType dtype, Sram& sram, SimError& error)
    : sc_core::sc_module(name), busy("busy"), hw_(hw), dtype_(dtype), sram_(sram), error_(error) {}

void ActUnit::execute(const isa::Instruction& inst, ExecRecord& rec) {
  const std::uint64_t start_ps = std::uint64_t(sc_core::sc_time_stamp().value());
  rec.start_ps = rec.end_ps = start_ps;
  VectorCost cost;
  try {
    cost = vector_cost(inst, hw_);
  } catch (const std::invalid_argument& e) {
    error_.raise(e.what());
    sc_core::sc_stop();
    return;
  }
  run_on_sram_operands(sram_, inst, dtype_, std::uint64_t(cost.cycles()), busy, rec, error_);
}

}  // namespace npu::hw
