// relocate_sram moves exactly the operands sram_operands lists, for every instruction form in
// the sample programs (which between them use every opcode, epilogue operand and ACT param).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "npu/isa/assembly.hpp"
#include "npu/isa/sram_relocate.hpp"

namespace npu::isa {
namespace {

TEST(SramRelocate, MovesEveryListedOperandByDelta) {
  int operands = 0;
  for (const char* f : {"every_instruction.npuasm", "new_ops.npuasm", "fusion_operands.npuasm",
                        "double_buffered_conv.npuasm", "move.npuasm"}) {
    const Program p = read_program_file(std::string(NPU_SOURCE_DIR) + "/tests/isa/data/" + f);
    for (const Instruction& in : p.instructions) {
      Instruction moved = in;
      relocate_sram(moved, 0x10000);
      const auto before = sram_operands(in, p.dtype), after = sram_operands(moved, p.dtype);
      ASSERT_EQ(before.size(), after.size()) << f;
      for (std::size_t k = 0; k < before.size(); ++k) {
        EXPECT_STREQ(before[k].name, after[k].name);
        EXPECT_EQ(after[k].addr, before[k].addr + 0x10000u) << f << " " << to_string(in.op) << " " << before[k].name;
        EXPECT_EQ(after[k].bytes, before[k].bytes);
        ++operands;
      }
      relocate_sram(moved, -0x10000);  // and back
      EXPECT_TRUE(moved == in) << f << " " << to_string(in.op);
    }
  }
  EXPECT_GT(operands, 40);
}

TEST(SramRelocate, LeavingThe32BitRangeThrows) {
  Instruction ld;
  ld.op = Opcode::Load;
  DmaDesc d;
  d.sram_addr = 16;
  ld.params = d;
  EXPECT_THROW(relocate_sram(ld, -17), std::out_of_range);
  EXPECT_THROW(relocate_sram(ld, std::int64_t(UINT32_MAX)), std::out_of_range);
  relocate_sram(ld, -16);
  EXPECT_EQ(std::get<DmaDesc>(ld.params).sram_addr, 0u);
}

}  // namespace
}  // namespace npu::isa
