// The instructions the bilinear Resize generators share (resize_linear.cpp for fp32,
// resize_linear_int8.cpp for int8): an ELTWISE, its b broadcast, and a column MOVE.
#pragma once

#include <cstdint>

#include "npu/isa/instruction.hpp"

namespace npu::compiler::codegen::resize_parts {

/// ELTWISE `op` over n elements: out = a (op) b, SRAM byte addresses.
inline isa::Instruction eltwise(isa::EltwiseOp op, std::uint32_t a, std::uint32_t b, std::uint32_t out, std::uint64_t n) {
  isa::EltwiseParams p;
  p.op = op;
  p.a_addr = a, p.b_addr = b, p.out_addr = out;
  p.elems = std::uint32_t(n);
  isa::Instruction in;
  in.op = isa::Opcode::Eltwise;
  in.params = p;
  return in;
}

/// `in` with b broadcast (lerp: the weight table): element i uses b[((offset + i) / inner) % count].
inline isa::Instruction broadcast(isa::Instruction in, std::uint64_t count, std::uint64_t inner, std::uint64_t offset) {
  auto& p = std::get<isa::EltwiseParams>(in.params);
  p.b_elems = std::uint32_t(count), p.b_inner = std::uint32_t(inner), p.b_offset = offset;
  return in;
}

/// MOVE of one column: `rows` elements `W` apart from `from` to `OW` apart from `to` (elements
/// of the program's dtype).
inline isa::Instruction column_move(std::uint32_t from, std::uint32_t to, std::uint64_t rows, std::uint64_t W,
                                    std::uint64_t OW) {
  isa::MoveParams m;
  m.in_addr = from, m.out_addr = to, m.rank = 1;
  m.extent[0] = std::uint32_t(rows);
  m.in_stride[0] = std::uint32_t(W);
  m.out_stride[0] = std::uint32_t(OW);
  isa::Instruction in;
  in.op = isa::Opcode::Move;
  in.params = m;
  return in;
}

}  // namespace npu::compiler::codegen::resize_parts
