// DDR placement of a program's tensors (internal to codegen/; the bank geometry it uses is
// public: codegen.hpp ddr_bank_geometry).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "npu/compiler/backend/codegen/codegen.hpp"

namespace npu::compiler::codegen {

/// Places the lowered graph's DDR tensors in first-use order: each base aligned to the bank
/// stride (at least 64 B) and moved to bank slot (k mod bank_slots) for the k-th tensor.
/// Declares them in `program` and returns each root's DDR base. Throws ConfigError when they
/// exceed the DDR capacity (or an address overflows 64 bits).
std::map<std::string, std::uint64_t> place_ddr_tensors(const LoweredGraph& lg, const HwConfig& hw,
                                                       isa::Program& program);

}  // namespace npu::compiler::codegen
