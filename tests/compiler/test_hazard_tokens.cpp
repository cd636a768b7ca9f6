// add_hazard_tokens (compiler/src/backend/schedule/depth_first/hazard_tokens.cpp): the dependency tokens of a
// straight-line LOAD / compute / STORE list, derived from the SRAM and DDR bytes each touches.
#include <gtest/gtest.h>

#include "backend/schedule/depth_first/stack_plan.hpp"

namespace npu::compiler::depth_first {
namespace {

using isa::Instruction;
using isa::Opcode;
using isa::Queue;
using isa::Token;

Instruction dma(Opcode op, std::uint64_t ddr, std::uint32_t sram, std::uint32_t bytes) {
  Instruction in;
  in.op = op;
  in.layer = "l";
  in.tensor = "t";
  isa::DmaDesc d;
  d.ddr_addr = ddr;
  d.sram_addr = sram;
  d.elem_bytes = 1;
  d.extent = {bytes, 1, 1};
  in.params = d;
  return in;
}

// LOAD A -> SRAM 0; STORE SRAM 0 -> DDR X; LOAD DDR X -> SRAM 128 (a read-back). The STORE
// reads what the LOAD wrote (ld2st); the second LOAD reads DDR bytes the STORE writes: it
// waits through a compute-queue SYNC (st2cp, then cp2ld), never by st2ld, which the layer
// fences and cross-layer pipelining pair by order.
TEST(HazardTokens, ReadBackOfAStoreWaitsThroughASync) {
  std::vector<Instruction> code{dma(Opcode::Load, 0, 0, 64), dma(Opcode::Store, 0x1000, 0, 64),
                                dma(Opcode::Load, 0x1000, 128, 64)};
  add_hazard_tokens(code, DType::Int8);
  const Token ld2st{Queue::Load, Queue::Store}, st2cp{Queue::Store, Queue::Compute}, cp2ld{Queue::Compute, Queue::Load};
  ASSERT_EQ(code.size(), 4u);
  EXPECT_EQ(code[0].push, std::vector<Token>{ld2st});
  EXPECT_EQ(code[1].wait, std::vector<Token>{ld2st});
  EXPECT_EQ(code[1].push, std::vector<Token>{st2cp});
  EXPECT_EQ(code[2].op, Opcode::Sync);
  EXPECT_EQ(code[2].wait, std::vector<Token>{st2cp});
  EXPECT_EQ(code[2].push, std::vector<Token>{cp2ld});
  EXPECT_EQ(code[3].op, Opcode::Load);
  EXPECT_EQ(code[3].wait, std::vector<Token>{cp2ld});
}

// Disjoint bytes need no token: two LOADs into different SRAM and a STORE of other bytes.
TEST(HazardTokens, DisjointAccessesGetNoTokens) {
  std::vector<Instruction> code{dma(Opcode::Load, 0, 0, 64), dma(Opcode::Store, 0x1000, 256, 64),
                                dma(Opcode::Load, 0x2000, 128, 64)};
  add_hazard_tokens(code, DType::Int8);
  ASSERT_EQ(code.size(), 3u);
  for (const auto& in : code) {
    EXPECT_TRUE(in.wait.empty());
    EXPECT_TRUE(in.push.empty());
  }
}

}  // namespace
}  // namespace npu::compiler::depth_first
