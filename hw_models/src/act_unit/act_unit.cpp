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
  const std::uint64_t start_cycle = sram_.cycle_at(start_ps);
  sram_.timing().retire_before(start_cycle);
  std::uint64_t mem_done_ps = start_ps;
  if (!access_operands(sram_, inst, dtype_, sram_.ps_at(start_cycle), rec, error_, mem_done_ps)) {
    sc_core::sc_stop();
    return;
  }
  const std::uint64_t end_ps = std::max(sram_.ps_at(start_cycle + cost.cycles()), mem_done_ps);
  busy.write(true);
  wait(sc_core::sc_time::from_value(end_ps - start_ps));
  busy.write(false);
  rec.end_ps = end_ps;
}

}  // namespace npu::hw
