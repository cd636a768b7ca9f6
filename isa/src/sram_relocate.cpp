// SRAM relocation of one instruction (sram_relocate.hpp). Mirrors sram_operands(): the test
// relocates every instruction of a sample program and compares the two operand lists.
#include "npu/isa/sram_relocate.hpp"

#include <stdexcept>
#include <string>
#include <type_traits>

namespace npu::isa {

namespace {

void move(std::uint32_t& addr, std::int64_t delta) {
  const std::int64_t a = std::int64_t(addr) + delta;
  if (a < 0 || a > std::int64_t(UINT32_MAX))
    throw std::out_of_range("relocate_sram: address " + std::to_string(addr) + " + " + std::to_string(delta) +
                            " leaves the 32-bit SRAM address range");
  addr = std::uint32_t(a);
}

void move_epilogue(Epilogue& e, std::int64_t delta) {
  if (e.has_bias) move(e.bias_addr, delta);
  if (e.has_scale_shift) move(e.scale_shift_addr, delta);
  if (e.has_residual) move(e.residual_addr, delta);
  if (e.has_mul) move(e.mul_addr, delta);
  if (e.has_in_scale) move(e.in_scale_addr, delta);
  if (e.requant.on) move(e.requant.addr, delta);
}

}  // namespace

void relocate_sram(Instruction& inst, std::int64_t delta) {
  std::visit(
      [&](auto& p) {
        using T = std::decay_t<decltype(p)>;
        if constexpr (std::is_same_v<T, DmaDesc>) {
          move(p.sram_addr, delta);
          if (p.gather) move(p.index_addr, delta);
        } else if constexpr (std::is_same_v<T, ConvParams>) {
          move(p.in_addr, delta), move(p.w_addr, delta), move(p.out_addr, delta);
          move_epilogue(p.epilogue, delta);
          if (p.acc_in) move(p.acc_in_addr, delta);
          if (p.acc_out) move(p.acc_out_addr, delta);
        } else if constexpr (std::is_same_v<T, GemmParams>) {
          move(p.a_addr, delta), move(p.b_addr, delta), move(p.out_addr, delta);
          move_epilogue(p.epilogue, delta);
        } else if constexpr (std::is_same_v<T, ActParams>) {
          move(p.in_addr, delta), move(p.out_addr, delta);
          if (p.has_residual) move(p.residual_addr, delta);
          if (act_param_elems(p.op, p.channels, p.elems, p.alpha) > 0) move(p.param_addr, delta);
          if (p.requant.on) move(p.requant.addr, delta);
        } else if constexpr (std::is_same_v<T, EltwiseParams>) {
          move(p.a_addr, delta), move(p.b_addr, delta), move(p.out_addr, delta);
          if (p.requant.on) move(p.requant.addr, delta);
        } else if constexpr (std::is_same_v<T, PoolParams>) {
          move(p.in_addr, delta), move(p.out_addr, delta);
          if (p.requant.on) move(p.requant.addr, delta);
        } else if constexpr (std::is_same_v<T, MoveParams>) {
          move(p.in_addr, delta), move(p.out_addr, delta);
        }
      },
      inst.params);
}

}  // namespace npu::isa
