// check_program on intermediates that share DDR bytes (a compiler reusing a dead tensor's
// region, docs/isa.md "Static checks", tensor-decl): allowed exactly when every LOAD/STORE of
// one happens before every LOAD/STORE of the other.
#include <gtest/gtest.h>

#include <string>

#include "npu/isa/check/program_check.hpp"
#include "small_npu.hpp"

namespace npu::isa {
namespace {

using test::small_npu;

Instruction dma(Opcode op, const std::string& tensor, std::uint64_t ddr, std::vector<Token> wait,
                std::vector<Token> push) {
  Instruction in;
  in.op = op;
  in.tensor = tensor;
  DmaDesc d;
  d.ddr_addr = ddr;
  d.extent = {64, 1, 1};
  in.params = d;
  in.wait = std::move(wait);
  in.push = std::move(push);
  return in;
}

/// Tensors a and b (kind `kb`) both at [0x1000, 0x1040). #0 STORE a (pushes st2ld), #1 LOAD a
/// (waits it; pushes ld2st when `ordered`), #2 STORE b (waits ld2st when `ordered`).
Program two_sharing(bool ordered, TensorKind kb = TensorKind::Intermediate) {
  Program p;
  p.dtype = DType::Int8;
  p.tensors.push_back({"a", TensorKind::Intermediate, 0x1000, 64});
  p.tensors.push_back({"b", kb, 0x1000, 64});
  p.instructions.push_back(dma(Opcode::Store, "a", 0x1000, {}, {kSt2Ld}));
  p.instructions.push_back(dma(Opcode::Load, "a", 0x1000, {kSt2Ld}, ordered ? std::vector<Token>{kLd2St} : std::vector<Token>{}));
  p.instructions.push_back(dma(Opcode::Store, "b", 0x1000, ordered ? std::vector<Token>{kLd2St} : std::vector<Token>{}, {}));
  return p;
}

TEST(SharedRegions, OrderedIntermediatesMayShareBytes) {
  const auto issues = check_program(two_sharing(true), small_npu());
  EXPECT_TRUE(issues.empty()) << (issues.empty() ? "" : issues[0].message);
}

TEST(SharedRegions, UnorderedIntermediatesAreReported) {
  // Nothing orders STORE b (#2, store queue) after LOAD a (#1, load queue): the LOAD could
  // read b's bytes instead of a's. One tensor-decl issue naming both and the two instructions.
  const auto issues = check_program(two_sharing(false), small_npu());
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].kind, CheckKind::TensorDecl);
  EXPECT_NE(issues[0].message.find("intermediate tensor 'b' [0x1000, 0x1040) overlaps intermediate tensor 'a' "
                                   "[0x1000, 0x1040) but their accesses are not ordered (instructions #1 and #2)"),
            std::string::npos)
      << issues[0].message;
}

TEST(SharedRegions, AnOutputNeverSharesBytesEvenWhenOrdered) {
  // Outputs are read back after the run: their bytes must stay theirs.
  const auto issues = check_program(two_sharing(true, TensorKind::Output), small_npu());
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_NE(issues[0].message.find("DDR regions of tensors must be disjoint"), std::string::npos) << issues[0].message;
}

}  // namespace
}  // namespace npu::isa
