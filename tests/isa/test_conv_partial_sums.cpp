// CONV acc_in / acc_out (docs/isa.md "CONV partial sums"): the assembly keys, the SRAM
// operands they add (4-byte partial sums whatever the dtype), their relocation, and the
// check that refuses an output epilogue on a CONV that writes partial sums.
#include <gtest/gtest.h>

#include <string>

#include "npu/isa/assembly.hpp"
#include "npu/isa/check/program_check.hpp"
#include "npu/isa/sram_relocate.hpp"
#include "small_npu.hpp"

namespace npu::isa {
namespace {

// A middle input-channel group: 4 output channels of 2 x 3 pixels, partial sums read and
// written in place at 0x400.
const char* kMiddleGroup =
    ".npuasm 1\n.program dtype=int8\n"
    "CONV    in=0x0 w=0x100 out=0x400 cin=2 hin=2 win=3 cout=4 kh=1 kw=1 acc_in=0x400 acc_out=0x400\n";

TEST(ConvPartialSums, KeysRoundTripInCanonicalOrder) {
  const Program p = read_program(kMiddleGroup, "mid.npuasm");
  const auto& c = std::get<ConvParams>(p.instructions.at(0).params);
  EXPECT_TRUE(c.acc_in);
  EXPECT_EQ(c.acc_in_addr, 0x400u);
  EXPECT_TRUE(c.acc_out);
  EXPECT_EQ(c.acc_out_addr, 0x400u);
  EXPECT_EQ(write_program(p), kMiddleGroup);
}

TEST(ConvPartialSums, OperandsAreFourBytesPerOutputElementAndReplaceTheOutput) {
  const Program p = read_program(kMiddleGroup, "mid.npuasm");
  const std::vector<SramOperand> ops = sram_operands(p.instructions.at(0), DType::Int8);
  // in 2x2x3 = 12 B, w 4x2 = 8 B, acc_in and acc_out 4 x 2 x 3 x 4 B = 96 B; no `out` (acc_out).
  ASSERT_EQ(ops.size(), 4u);
  EXPECT_EQ(ops[2].name, std::string("acc_in"));
  EXPECT_EQ(ops[2].bytes, 96u);
  EXPECT_FALSE(ops[2].write);
  EXPECT_EQ(ops[3].name, std::string("acc_out"));
  EXPECT_EQ(ops[3].bytes, 96u);
  EXPECT_TRUE(ops[3].write);
  Instruction moved = p.instructions.at(0);
  relocate_sram(moved, 0x1000);
  const auto& c = std::get<ConvParams>(moved.params);
  EXPECT_EQ(c.acc_in_addr, 0x1400u);
  EXPECT_EQ(c.acc_out_addr, 0x1400u);
}

TEST(ConvPartialSums, AnOutputEpilogueOnAPartialSumConvIsRefused) {
  Program p = read_program(kMiddleGroup, "mid.npuasm");
  std::get<ConvParams>(p.instructions.at(0).params).epilogue.has_bias = true;
  bool found = false;
  for (const CheckIssue& i : check_program(p, test::small_npu()))
    found = found || i.message.find("apply only on the last group") != std::string::npos;
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace npu::isa
