// SystemC wrapper of the activation unit for stand-alone ACT / ELTWISE / POOL: one wait()
// per instruction; operands stream SRAM -> SRAM, so the instruction ends at
//   max(start + vector cycles (act_unit_timing.hpp), SRAM reads done, SRAM writes done).
#pragma once

#include <systemc>

#include "npu/hw/act_unit/act_unit_timing.hpp"
#include "npu/hw/controller/exec_record.hpp"
#include "npu/hw/sram/sram.hpp"

namespace npu::hw {

class ActUnit : public sc_core::sc_module {
 public:
  sc_core::sc_signal<bool> busy;  ///< high while an instruction runs (VCD)

  ActUnit(sc_core::sc_module_name name, const HwConfig& hw, DType dtype, Sram& sram, SimError& error);

  /// Execute ACT, ELTWISE or POOL `inst`; blocks until done; fills `rec`.
  void execute(const isa::Instruction& inst, ExecRecord& rec);

 private:
  const HwConfig& hw_;
  DType dtype_;
  Sram& sram_;
  SimError& error_;
};

}  // namespace npu::hw
