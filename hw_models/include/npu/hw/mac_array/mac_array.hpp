// SystemC wrapper of the MAC array: executes CONV/GEMM tiles with one wait() per tile.
// The tile reads its operands from SRAM (limited by SRAM bandwidth and bank conflicts) while
// it computes, and writes its output as it drains:
//   end = max(start + tile cycles (mac_array_timing.hpp), operand reads done, output written).
#pragma once

#include <systemc>

#include "npu/hw/controller/exec_record.hpp"
#include "npu/hw/mac_array/mac_array_timing.hpp"
#include "npu/hw/sram/sram.hpp"

namespace npu::hw {

/// Reads every SRAM operand `inst` reads and writes every one it writes, all requested at
/// `start_ps`; returns the latest completion and adds bytes and conflicts to `rec`.
/// Returns false (and raises `error`) when an operand is outside the SRAM.
bool access_operands(Sram& sram, const isa::Instruction& inst, DType dtype, std::uint64_t start_ps,
                     ExecRecord& rec, SimError& error, std::uint64_t& done_ps);

/// Runs one compute instruction of `cycles` core cycles that starts now (called from an
/// SC_THREAD): reads/writes its SRAM operands (access_operands), holds `busy` high and
/// wait()s once until end = max(start + cycles, operands done); sets rec.start_ps/end_ps.
/// Returns false (after sc_stop()) when an operand is outside the SRAM. Shared by the MAC
/// array and the activation unit.
bool run_on_sram_operands(Sram& sram, const isa::Instruction& inst, DType dtype, std::uint64_t cycles,
                          sc_core::sc_signal<bool>& busy, ExecRecord& rec, SimError& error);

class MacArray : public sc_core::sc_module {
 public:
  sc_core::sc_signal<bool> busy;  ///< high while a tile runs (VCD)

  MacArray(sc_core::sc_module_name name, const HwConfig& hw, DType dtype, Sram& sram, SimError& error);

  /// Execute CONV or GEMM `inst`; blocks until the tile is done. Fills `rec` (start, end,
  /// MACs, SRAM bytes, conflicts).
  void execute(const isa::Instruction& inst, ExecRecord& rec);

 private:
  const HwConfig& hw_;
  DType dtype_;
  Sram& sram_;
  SimError& error_;
};

}  // namespace npu::hw
