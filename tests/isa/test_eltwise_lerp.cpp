// ELTWISE lerp / lerp_round, the int8 integer blend of the bilinear Resize (docs/isa.md
// "ELTWISE"): assembly round trip, the SRAM operands' sizes (int8 taps in and int32 out, then
// the reverse; the weight table), and the exact messages for a missing table or a zero point.
#include <gtest/gtest.h>

#include "npu/isa/assembly.hpp"
#include "npu/isa/requant_operand.hpp"

using namespace npu;
using namespace npu::isa;

namespace {

Instruction lerp(EltwiseOp op, std::uint32_t elems, std::uint32_t weights, std::uint32_t inner, std::uint64_t offset) {
  EltwiseParams p;
  p.op = op;
  p.a_addr = 0x0, p.b_addr = 0x100, p.out_addr = 0x200, p.elems = elems;
  p.b_elems = weights, p.b_inner = inner, p.b_offset = offset;
  p.requant.on = true, p.requant.addr = 0x400;
  Instruction in;
  in.op = Opcode::Eltwise;
  in.layer = "up";
  in.params = p;
  return in;
}

std::string read_error(const std::string& line) {
  try {
    read_program(".npuasm 1\n.program dtype=int8\n" + line + "\n", "bad.npuasm");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST(EltwiseLerp, RoundTripsThroughAssembly) {
  Program p;
  p.dtype = DType::Int8;
  p.instructions = {lerp(EltwiseOp::Lerp, 32, 8, 1, 0), lerp(EltwiseOp::LerpRound, 16, 6, 4, 8)};
  const std::string text = write_program(p);
  EXPECT_EQ(text,
            ".npuasm 1\n.program dtype=int8\n"
            "ELTWISE layer=up op=lerp a=0x0 b=0x100 out=0x200 elems=32 b_elems=8 requant=0x400\n"
            "ELTWISE layer=up op=lerp_round a=0x0 b=0x100 out=0x200 elems=16 b_elems=6 b_inner=4 b_offset=8 "
            "requant=0x400\n");
  EXPECT_EQ(read_program(text), p) << text;
}

TEST(EltwiseLerp, OperandSizesFollowTheTapTypes) {
  // lerp over 32 elements, 8 weights: a, b 32 int8 bytes each, out 32 int32 = 128 B, table 8 x 4.
  const auto l = sram_operands(lerp(EltwiseOp::Lerp, 32, 8, 1, 0), DType::Int8);
  ASSERT_EQ(l.size(), 4u);
  EXPECT_EQ(l[0].bytes, 32u);
  EXPECT_EQ(l[1].bytes, 32u);  // b is never broadcast: b_elems counts the weights
  EXPECT_EQ(l[2].bytes, 128u);
  EXPECT_STREQ(l[3].name, "requant");
  EXPECT_EQ(l[3].bytes, 32u);
  // lerp_round over 16: a, b int32 (64 B each), out int8 (16 B), 6 weights (24 B).
  const auto r = sram_operands(lerp(EltwiseOp::LerpRound, 16, 6, 4, 8), DType::Int8);
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].bytes, 64u);
  EXPECT_EQ(r[1].bytes, 64u);
  EXPECT_EQ(r[2].bytes, 16u);
  EXPECT_EQ(r[3].bytes, 24u);
}

TEST(EltwiseLerp, AMissingTableOrAZeroPointIsAnError) {
  Instruction no_table = lerp(EltwiseOp::Lerp, 4, 0, 1, 0);
  std::get<EltwiseParams>(no_table.params).requant.on = false;
  EXPECT_EQ(requant_problem(no_table),
            "ELTWISE op=lerp without requant=: its requant operand is the table of int32 blend weights (docs/isa.md "
            "\"ELTWISE lerp\"); give its SRAM address");
  Instruction zp = lerp(EltwiseOp::LerpRound, 4, 0, 1, 0);
  std::get<EltwiseParams>(zp.params).requant.out_zp = 3;
  EXPECT_EQ(requant_problem(zp),
            "zp/clamp on ELTWISE op=lerp_round: the blend's weights sum to 2^10, so a zero point passes through and "
            "the result is already in range; give none");
  EXPECT_NE(read_error("ELTWISE op=lerp a=0x0 b=0x10 out=0x20 elems=4").find("without requant="), std::string::npos)
      << read_error("ELTWISE op=lerp a=0x0 b=0x10 out=0x20 elems=4");
}
