// Static checks of a program against a hardware config (`npu asm check`).
#pragma once

#include <string>
#include <vector>

#include "npu/isa/hw_config.hpp"
#include "npu/isa/instruction.hpp"

namespace npu::isa {

struct CheckIssue {
  int source_line = 0;      ///< .npuasm line (0 when unknown)
  std::size_t index = 0;    ///< instruction index
  std::string message;      ///< what is wrong and how to fix it
};

/// Checks: SRAM ranges of every operand inside sram.capacity_bytes; DDR ranges inside the
/// DDR capacity and inside the named tensor's declared region; tensors declared and not
/// overlapping; tile shapes legal (positive, c_in divisible by group, output size >= 1);
/// tokens balanced (for each token pair, pushes == waits, pushed by the `from` queue and
/// waited on by the `to` queue). Returns every issue found (empty = the program is valid).
std::vector<CheckIssue> check_program(const Program& program, const HwConfig& hw);

}  // namespace npu::isa
