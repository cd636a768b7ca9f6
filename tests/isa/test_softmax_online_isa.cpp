// ACT op=softmax_online (docs/isa.md "ACT"): the canonical text round-trips, its state operand
// is read and written (3 fp32 words a row), and check_program refuses a first-block flag that
// is neither 0 nor 1.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "npu/isa/assembly.hpp"
#include "npu/isa/check/program_check.hpp"
#include "small_npu.hpp"

namespace {

using namespace npu::isa;

const std::string kSoftmaxHead = ".npuasm 1\n.program attn dtype=int8\n";  // small_npu() has an int8 array
const std::string kLine =
    "ACT     op=softmax_online in=0x0 res=0x400 out=0x0 elems=64 channels=4 param=0x800 alpha=0.125 beta=1";

TEST(SoftmaxOnlineIsa, CanonicalTextRoundTrips) {
  const Program p = read_program(kSoftmaxHead + kLine + "\n");
  ASSERT_EQ(p.instructions.size(), 1u);
  const auto& a = std::get<ActParams>(p.instructions[0].params);
  EXPECT_EQ(a.op, ActOp::SoftmaxOnline);
  EXPECT_EQ(a.param_addr, 0x800u);
  EXPECT_EQ(a.alpha, 0.125f);
  EXPECT_EQ(a.beta, 1.0f);
  EXPECT_TRUE(a.has_residual);
  EXPECT_NE(write_program(p).find(kLine), std::string::npos) << write_program(p);
  // The state: m, l and corr of each of the 4 rows, 4-byte words: 12 words.
  EXPECT_EQ(act_param_elems(ActOp::SoftmaxOnline, 4, 64), 12u);
  EXPECT_EQ(act_passes(ActOp::SoftmaxOnline), 2);
  EXPECT_TRUE(is_row_wise(ActOp::SoftmaxOnline));
}

TEST(SoftmaxOnlineIsa, CheckRefusesAFirstFlagThatIsNeitherZeroNorOne) {
  Program p = read_program(kSoftmaxHead + kLine + "\n");
  EXPECT_TRUE(check_program(p, npu::isa::test::small_npu()).empty());
  std::get<ActParams>(p.instructions[0].params).beta = 0.5f;
  const auto issues = check_program(p, npu::isa::test::small_npu());
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_NE(issues[0].message.find("softmax_online beta=0.5 is neither 1"), std::string::npos) << issues[0].message;
}

}  // namespace
