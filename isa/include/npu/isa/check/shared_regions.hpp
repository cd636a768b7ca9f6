// Tensors that share DDR bytes (a compiler reusing an intermediate's region once it is dead):
// allowed between intermediates whose accesses are ordered. docs/isa.md, "Static checks"
// (tensor-decl).
#pragma once

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "npu/isa/instruction.hpp"

namespace npu::isa {

/// For each pair (a, b) of indices into program.tensors whose DDR regions overlap: nullopt when
/// every LOAD/STORE naming one of them happens before every LOAD/STORE naming the other
/// (happens_before.hpp; a tensor no instruction names is ordered with anything), otherwise
/// the indices (i, j) of two instructions, one naming a and one naming b, that are not ordered.
/// When the queues cannot complete (deadlock, unbalanced tokens) no pair is ordered and the
/// pair (0, 0) is returned for each. O(instructions + pairs).
std::vector<std::optional<std::pair<std::size_t, std::size_t>>> unordered_accesses(
    const Program& program, const std::vector<std::pair<std::size_t, std::size_t>>& pairs);

}  // namespace npu::isa
