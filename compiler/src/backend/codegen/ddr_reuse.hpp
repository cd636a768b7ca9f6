// DDR regions of intermediate tensors reused by lifetime (internal to codegen/; applied by
// generate() only when the layout without reuse exceeds the DDR). docs/compiler.md, "DDR
// placement".
#pragma once

#include <cstdint>

#include "npu/isa/instruction.hpp"

namespace npu::compiler::codegen {

/// Re-places the `intermediate` tensors of `program` (as codegen emits it: layers separated
/// by fences, each LOAD/STORE at its tensor's current base) so that two intermediates whose
/// LOADs and STOREs lie in different fence epochs may share DDR bytes: a tensor's region is
/// free once a fence follows its last LOAD/STORE, and a tensor whose first LOAD/STORE follows
/// that fence may take it (first fit). A fence (a SYNC on the store queue pushing st2ld, which
/// the next layer's first LOAD waits for, after a SYNC on the compute queue) orders every
/// instruction before it before every instruction of the next layer, so no access of the old
/// tensor can run after the new one's first. Every other tensor (input, weight, output, or an
/// intermediate no instruction names) keeps a region of its own, packed first in declaration
/// order. Bases are aligned to `align` bytes (> 0). Moves each tensor's `.tensor` base and
/// every LOAD/STORE naming it by the same amount; returns one past the highest byte used.
std::uint64_t reuse_ddr_by_lifetime(isa::Program& program, std::uint64_t align);

}  // namespace npu::compiler::codegen
