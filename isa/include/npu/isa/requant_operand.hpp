// Legality of the int8 requantisation operand (isa::Requant, docs/isa.md "int8
// requantisation"): one rule shared by the .npuasm reader, the writer and check_program, so
// text and memory agree on what a requantising instruction may combine.
#pragma once

#include <cstdint>
#include <string>

#include "npu/isa/instruction.hpp"

namespace npu::isa {

/// Bytes of an int8 ACT lookup table (one int8 output per int8 input, indexed by x + 128) and of
/// the ELTWISE mul table (one (multiplier, shift) pair).
constexpr std::uint64_t kActLutBytes = 256, kEltwiseMulTableBytes = 8;
/// int8 ACT softmax: 256 int32 exp table entries (docs/functional.md, "int8 execution").
constexpr std::uint64_t kSoftmaxTableBytes = 1024;
/// Longest row of an int8 softmax / layer_norm / rms_norm: the int32 sum of 32768 table entries
/// of at most 65535 stays below 2^31, and D^2 x 255^2 x 2^16 below 2^63.
constexpr std::uint64_t kInt8RowMax = 32768;

/// ACT ops that requantise through a 256-entry lookup table in int8 (every element-wise
/// function but relu / clip / identity, which rescale, and scale_shift, layer_norm, softmax).
bool act_uses_lut(ActOp op);

/// Bytes of the SRAM table at `requant` for `inst` (0 without requant): CONV/GEMM 8 per output
/// channel, ACT scale_shift 8 per channel, ACT relu/clip/identity 8, ACT LUT ops 256, ACT
/// softmax 1024, ACT layer_norm / rms_norm 8 (D + 1) with D = elems / channels, POOL 8, ELTWISE
/// add 28, mul 8.
std::uint64_t requant_table_bytes(const Instruction& inst);

/// "" when the instruction's requant operand is legal (or absent), else why not, as a sentence
/// fragment naming the key ("requant on ELTWISE op=sub: ..."). Rules: requant only on CONV,
/// GEMM (not with scale_shift, residual or in_scale; act none, relu or clip), ACT (no res;
/// a LUT op takes no zero points: its table holds them; softmax, layer_norm and rms_norm take
/// them), POOL global_avg and ELTWISE add/mul (and lerp/lerp_round, whose table is the blend weights);
/// zero points and clamp bounds in [-128, 127] with clamp_min <= clamp_max; zp/clamp other than
/// their defaults only with requant.
std::string requant_problem(const Instruction& inst);

/// The Requant of `inst` (nullptr for opcodes without one).
const Requant* requant_of(const Instruction& inst);

}  // namespace npu::isa
