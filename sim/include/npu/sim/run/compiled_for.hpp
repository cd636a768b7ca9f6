// Does a program run on the hardware it was compiled for? (isa::CompiledFor, docs/isa.md)
#pragma once

#include <string>

#include "npu/hw_config/hw_config.hpp"
#include "npu/isa/instruction.hpp"

namespace npu::sim {

/// A warning when `program` was compiled for an array shape, dataflow or SRAM capacity other than
/// `hw`'s: its tiles, loop orders and buffers were chosen for that hardware, so a run here
/// measures that program on this hardware, not what compiling for it gives (new-user finding:
/// ResNet-18 compiled for the edge preset ran 3.1x slower on tpu-v1-like than compiled for it,
/// with no word). "" when they agree or the program does not say (hand-written).
/// `program_path` names the program in the message.
std::string compiled_for_warning(const isa::Program& program, const HwConfig& hw, const std::string& program_path);

}  // namespace npu::sim
