// isa::compulsory_bytes (instruction.hpp): inputs, weights and outputs once, except a table read
// only by gather LOADs, which counts the rows gathered (a decode step reads one embedding row).
#include <gtest/gtest.h>

#include "npu/isa/instruction.hpp"

namespace {

using namespace npu::isa;

Instruction dma(Opcode op, const std::string& tensor, std::uint32_t row, std::uint32_t rows, bool gather = false) {
  Instruction in;
  in.op = op;
  in.tensor = tensor;
  DmaDesc d;
  d.extent = {row, rows, 1};
  d.ddr_stride_bytes = {row, 0};
  d.gather = gather;
  d.gather_rows = gather ? 100 : 0;
  in.params = d;
  return in;
}

// A 100 x 10 B table (1000 B), 2 int32 indices (8 B), a 2 x 10 B output (20 B).
Program gather_program(int gathers) {
  Program p;
  p.tensors = {{"table", TensorKind::Weight, 0, 1000}, {"ids", TensorKind::Input, 1024, 8},
               {"out", TensorKind::Output, 2048, 20}, {"tmp", TensorKind::Intermediate, 4096, 20}};
  p.instructions.push_back(dma(Opcode::Load, "ids", 8, 1));
  for (int i = 0; i < gathers; ++i) p.instructions.push_back(dma(Opcode::Load, "table", 10, 2, true));
  p.instructions.push_back(dma(Opcode::Store, "out", 10, 2));
  return p;
}

TEST(CompulsoryGather, AGatheredTableCountsTheRowsGatheredNotTheTable) {
  // 8 (ids) + 2 rows x 10 B + 20 (out); the intermediate never counts.
  EXPECT_EQ(compulsory_bytes(gather_program(1)), 8u + 20u + 20u);
  // Three gathers of 2 rows: 60 B of the table.
  EXPECT_EQ(compulsory_bytes(gather_program(3)), 8u + 60u + 20u);
  // More rows gathered than the table holds: at most the table.
  EXPECT_EQ(compulsory_bytes(gather_program(60)), 8u + 1000u + 20u);
}

TEST(CompulsoryGather, ATableAlsoReadWholeCountsWhole) {
  // A tied LM head reads the embedding table with a plain LOAD too: all of it is compulsory.
  Program p = gather_program(1);
  p.instructions.push_back(dma(Opcode::Load, "table", 1000, 1));
  EXPECT_EQ(compulsory_bytes(p), 8u + 1000u + 20u);
  // A table no LOAD names (a host op reads it) counts whole as well.
  Program q = gather_program(0);
  EXPECT_EQ(compulsory_bytes(q), 8u + 1000u + 20u);
}

}  // namespace
