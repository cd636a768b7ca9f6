// Functional mode of the NPU (docs/functional.md, "Data path"): the values the units would
// compute. NpuTop builds one when NpuTopOptions::ddr_data is set; the controller hands it
// every instruction after its unit has finished it (after the unit's wait(), before its
// tokens are pushed), so data effects follow the same token order as the timing and each
// instruction's effect is applied at once at its completion time.
//
// Timing never depends on data: the data path only reads and writes its stores and is never
// consulted by a timing core. Without a data path nothing here runs (the controller tests
// one pointer per instruction).
#pragma once

#include <cstdint>

#include "npu/hw/memory/backing_store.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "npu/isa/instruction.hpp"

namespace npu::hw {

class DataPath {
 public:
  /// `ddr` holds the DDR contents (the caller's, e.g. a compiler DDR image, read back after
  /// the run); the SRAM store (sram_capacity_bytes) is owned here and starts zeroed. Throws
  /// std::invalid_argument for a dtype the data path does not compute (fp16; fp32 and int8
  /// programs are executed, int8 by functional/int8_ops.hpp).
  DataPath(BackingStore& ddr, std::uint64_t sram_capacity_bytes, DType dtype);

  /// Apply `inst`'s effect on the stores (functional/ops.hpp). SYNC and HOST change
  /// nothing (HOST partitions are not computed: their outputs stay as they were).
  /// Throws std::out_of_range for an operand outside a store.
  void execute(const isa::Instruction& inst);

  BackingStore& ddr() { return ddr_; }
  BackingStore& sram() { return sram_; }
  std::uint64_t instructions_executed() const { return executed_; }

 private:
  BackingStore& ddr_;
  BackingStore sram_;
  std::uint64_t executed_ = 0;
  bool int8_ = false;  ///< int8 program: functional/int8_ops.hpp
};

}  // namespace npu::hw
