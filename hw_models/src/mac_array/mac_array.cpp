#include "npu/hw/mac_array/mac_array.hpp"

#include <algorithm>

namespace npu::hw {

bool access_operands(Sram& sram, const isa::Instruction& inst, DType dtype, std::uint64_t start_ps,
                     ExecRecord& rec, SimError& error, std::uint64_t& done_ps) {
  done_ps = start_ps;
  const std::uint64_t capacity = sram.timing().config().capacity_bytes;
  for (const isa::SramOperand& op : isa::sram_operands(inst, dtype)) {
    // Bank time and traffic for the bytes the operand touches (a MOVE's strided box: its
    // elements, not its span; docs/timing.md); the whole range must lie in the SRAM.
    const std::uint64_t bytes = op.touched_bytes();
    const bool past = std::uint64_t(op.addr) + op.bytes > capacity;
    const SramTimedAccess a = past ? SramTimedAccess{} : sram.access(start_ps, op.addr, bytes, op.write);
    if (past || !a.ok) {
      error.raise(std::string("SRAM operand '") + op.name + "' [" + std::to_string(op.addr) + ", " +
                  std::to_string(std::uint64_t(op.addr) + op.bytes) + ") is past sram.capacity_bytes " +
                  std::to_string(capacity));
      return false;
    }
    (op.write ? rec.sram_write_bytes : rec.sram_read_bytes) += bytes;
    rec.sram_conflict_cycles = std::max(rec.sram_conflict_cycles, a.conflict_cycles);
    done_ps = std::max(done_ps, a.done_ps);
  }
  return true;
}

bool run_on_sram_operands(Sram& sram, const isa::Instruction& inst, DType dtype, std::uint64_t cycles,
                          sc_core::sc_signal<bool>& busy, ExecRecord& rec, SimError& error) {
  const std::uint64_t start_ps = std::uint64_t(sc_core::sc_time_stamp().value());
  rec.start_ps = rec.end_ps = start_ps;
  const std::uint64_t start_cycle = sram.cycle_at(start_ps);
  sram.timing().retire_before(start_cycle);
  std::uint64_t mem_done_ps = start_ps;
  if (!access_operands(sram, inst, dtype, sram.ps_at(start_cycle), rec, error, mem_done_ps)) {
    sc_core::sc_stop();
    return false;
  }
  const std::uint64_t end_ps = std::max(sram.ps_at(start_cycle + cycles), mem_done_ps);
  busy.write(true);
  sc_core::wait(sc_core::sc_time::from_value(end_ps - start_ps));
  busy.write(false);
  rec.end_ps = end_ps;
  return true;
}

MacArray::MacArray(sc_core::sc_module_name name, const HwConfig& hw, DType dtype, Sram& sram, SimError& error)
    : sc_core::sc_module(name), busy("busy"), hw_(hw), dtype_(dtype), sram_(sram), error_(error) {}

void MacArray::execute(const isa::Instruction& inst, ExecRecord& rec) {
  const std::uint64_t start_ps = std::uint64_t(sc_core::sc_time_stamp().value());
  rec.start_ps = rec.end_ps = start_ps;
  MacTileCost cost;
  try {
    cost = inst.op == isa::Opcode::Conv ? conv_tile_cost(std::get<isa::ConvParams>(inst.params), hw_)
                                        : gemm_tile_cost(std::get<isa::GemmParams>(inst.params), hw_);
  } catch (const std::invalid_argument& e) {
    error_.raise(e.what());
    sc_core::sc_stop();
    return;
  }
  if (run_on_sram_operands(sram_, inst, dtype_, std::uint64_t(cost.cycles()), busy, rec, error_)) rec.macs = cost.macs;
}

}  // namespace npu::hw
