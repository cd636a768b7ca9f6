// Static checks of a program against a hardware config (`npu asm check`).
#pragma once

#include <string>
#include <vector>

#include "npu/hw_config/hw_config.hpp"
#include "npu/isa/instruction.hpp"

namespace npu::isa {

/// What a CheckIssue is about (for filtering and tests; the message says the details).
enum class CheckKind {
  SramRange,      ///< an SRAM operand ends past sram.capacity_bytes
  DdrRange,       ///< a DMA range or a tensor declaration ends past the DDR capacity
  TensorRegion,   ///< LOAD/STORE names no/an undeclared tensor or leaves its declared region
  TensorDecl,     ///< tensor declarations overlap, repeat a name or are empty
  Shape,          ///< illegal tile shape or field value (dims < 1, group, output size, params)
  DataType,       ///< program dtype differs from the MAC array's dtype
  Token,          ///< token pushed/waited by the wrong queue, or pushes != waits for a token
  Deadlock,       ///< the queues block forever (only checked when the tokens are balanced)
  Dataflow,       ///< DDR data flow (check_dataflow): a LOAD reads bytes no earlier STORE wrote, an output not fully written
  SramRace,       ///< two queues touch the same SRAM bytes, one writing, with no token ordering them (check_sram_races)
};
const char* to_string(CheckKind k);  ///< "sram-range", "ddr-range", ... (as in docs/isa.md)

struct CheckIssue {
  int source_line = 0;      ///< .npuasm line (0 when unknown)
  std::size_t index = 0;    ///< instruction index (tensor index for TensorDecl issues)
  std::string message;      ///< what is wrong and how to fix it
  CheckKind kind = CheckKind::Shape;  ///< additive: category of the issue
};

/// Checks: SRAM ranges of every operand inside sram.capacity_bytes; DDR ranges inside the
/// DDR capacity and inside the named tensor's declared region; tensors declared and not
/// overlapping; tile shapes legal (positive, c_in divisible by group, output size >= 1);
/// tokens balanced (for each token pair, pushes == waits, pushed by the `from` queue and
/// waited on by the `to` queue). Returns every issue found (empty = the program is valid).
/// Also: program dtype == mac_array.dtype, and (when tokens are balanced) that the three
/// queues run to completion. Issues come in a fixed order: dtype, tensors, instructions in
/// index order, token balance, deadlock. Rules and messages: docs/isa.md, "Static checks".
std::vector<CheckIssue> check_program(const Program& program, const HwConfig& hw);

}  // namespace npu::isa
