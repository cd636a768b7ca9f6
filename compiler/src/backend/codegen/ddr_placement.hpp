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
/// When that exceeds the DDR capacity the tensors are packed instead (aligned only).
/// Declares them in `program` and returns each root's DDR base (which may still exceed the
/// DDR: fit_ddr decides once the program exists). Throws ConfigError when an address
/// overflows 64 bits.
std::map<std::string, std::uint64_t> place_ddr_tensors(const LoweredGraph& lg, const HwConfig& hw,
                                                       isa::Program& program);

/// Called before any instruction is generated: throws ConfigError when even the smallest
/// DDR footprint reuse by lifetime could reach (graph inputs, weights and outputs, which
/// keep regions of their own, plus the largest intermediate; bytes) exceeds the DDR
/// capacity, naming both figures, the capacity and the fix. A 40 GB input is thereby refused
/// at once instead of after generating its program.
void check_ddr_lower_bound(const HwConfig& hw, const isa::Program& program);

/// Called on the generated program (before any program pass): when its tensors end past the
/// DDR capacity, re-places the intermediates with regions reused by lifetime
/// (ddr_reuse.hpp). Programs that fit are not changed. Throws ConfigError naming the bytes
/// needed (packed, and with reuse), the DDR capacity and the fix when even that does not fit.
void fit_ddr(const HwConfig& hw, isa::Program& program);

}  // namespace npu::compiler::codegen
