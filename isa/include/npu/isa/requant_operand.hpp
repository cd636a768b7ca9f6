// Legality of the int8 requantisation operand (isa::Requant, docs/isa.md "int8
// requantisation"): one rule shared by the .npuasm reader, the writer and check_program, so
// text and memory agree on what a requantising instruction may combine.
#pragma once

#include <string>

#include "npu/isa/instruction.hpp"

namespace npu::isa {

/// "" when the instruction's requant operand is legal (or absent), else why not, as a sentence
/// fragment naming the key ("requant on ELTWISE op=mul: ..."). Rules: requant only on CONV,
/// GEMM (not with scale_shift, residual or in_scale; act none, relu or clip), ACT (op relu,
/// clip or identity; no res) and ELTWISE op=add; zero points and clamp bounds in [-128, 127]
/// with clamp_min <= clamp_max; zp/clamp other than their defaults only with requant.
std::string requant_problem(const Instruction& inst);

/// The Requant of `inst` (nullptr for opcodes without one).
const Requant* requant_of(const Instruction& inst);

}  // namespace npu::isa
