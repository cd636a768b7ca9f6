// LOAD gather / STORE scatter (docs/isa.md "LOAD gather / STORE scatter"): the optional keys
// index=, table_rows= and index_float= read, written and checked. The sample tests/isa/data/gather.npuasm also round-trips with the others
// (test_assembly.cpp).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "npu/isa/assembly.hpp"
#include "npu/isa/check/program_check.hpp"

namespace npu::isa {
namespace {

std::string sample() {
  std::ifstream in(std::string(NPU_SOURCE_DIR) + "/tests/isa/data/gather.npuasm");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

HwConfig tiny_fp32() {
  HwConfig hw;
  hw.source = "tiny";
  hw.npu = {"tiny", 1000};
  hw.mac_array.rows = hw.mac_array.cols = 4;
  hw.mac_array.dtype = DType::Fp32;
  hw.sram.capacity_bytes = 4096;
  hw.ddr.channels = hw.ddr.ranks = hw.ddr.bank_groups = hw.ddr.banks_per_group = 1;
  hw.ddr.rows = 256;
  hw.ddr.columns = 256;
  hw.ddr.bus_width_bits = 64;
  return hw;
}

TEST(GatherLoad, KeysReadAsTheGatherFormAndTheTableSpanIsChecked) {
  const Program p = read_program(sample(), "gather.npuasm");
  const auto& d = std::get<DmaDesc>(p.instructions.at(1).params);
  EXPECT_TRUE(d.gather);
  EXPECT_EQ(d.index_addr, 0u);
  EXPECT_EQ(d.gather_rows, 10u);
  // The DDR span is the whole table: (10 - 1) * 16 + 4 * 4 = 160 B, wte's bytes exactly.
  EXPECT_EQ(d.ddr_span_bytes(), 160u);
  // SRAM operands: the 48 B written at 0x40, and the 3 int32 indices (12 B) read at 0x0.
  const auto ops = sram_operands(p.instructions.at(1), DType::Fp32);
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_EQ(ops[1].name, std::string("index"));
  EXPECT_EQ(ops[1].bytes, 12u);
  EXPECT_FALSE(ops[1].write);
  EXPECT_TRUE(check_program(p, tiny_fp32()).empty());
  // A plain LOAD is unchanged: no index operand, its span its rows.
  EXPECT_FALSE(std::get<DmaDesc>(p.instructions.at(0).params).gather);
}

TEST(GatherLoad, TheCheckTakesAScatterStoreAndRefusesAShortTableOrPlanes) {
  std::string text = sample();
  // table_rows=11 reads past wte's 160 B: (11 - 1) * 16 + 16 = 176 B.
  std::string longer = text;
  longer.replace(longer.find("table_rows=10"), 13, "table_rows=11");
  bool region = false;
  for (const CheckIssue& i : check_program(read_program(longer), tiny_fp32()))
    region = region || i.kind == CheckKind::TensorRegion;
  EXPECT_TRUE(region) << "a table span past the tensor is not reported";
  // A STORE with index= is a scatter of rows: y's 48 B as 3 rows of 16 B at the 3 indices.
  std::string store = text;
  store.replace(store.find("elem=4 extent=12"), 16, "elem=4 extent=4,3 stride=16 index=0x0 table_rows=3");
  const Program scatter = read_program(store);
  EXPECT_TRUE(std::get<DmaDesc>(scatter.instructions.at(2).params).gather);
  for (const CheckIssue& i : check_program(scatter, tiny_fp32()))
    ADD_FAILURE() << "a scatter STORE is refused: " << i.message;
  // Planes (extent[2] > 1) are no gather form.
  std::string planes = text;
  planes.replace(planes.find("extent=4,3 stride=16 index=0x0"), 30, "extent=4,3,2 stride=16,0 index=0x0");
  bool shape = false;
  for (const CheckIssue& i : check_program(read_program(planes), tiny_fp32()))
    shape = shape || (i.kind == CheckKind::Shape && i.message.find("a gather LOAD or scatter STORE (index=)") !=
                                                         std::string::npos);
  EXPECT_TRUE(shape) << "a gather with planes is not refused";
}

TEST(GatherLoad, Fp32IndicesAreTheOptionalKeyIndexFloatAndOnlyAGatherTakesIt) {
  std::string text = sample();
  text.replace(text.find("table_rows=10"), 13, "table_rows=10 index_float=4");
  const Program p = read_program(text, "gather.npuasm");
  EXPECT_EQ(std::get<DmaDesc>(p.instructions.at(1).params).index_float, 4u);
  EXPECT_TRUE(check_program(p, tiny_fp32()).empty());
  // Written back with the key, and read again to the same program (int32 gathers omit it).
  const std::string again = write_program(p);
  EXPECT_NE(again.find("index_float=4"), std::string::npos) << again;
  EXPECT_EQ(read_program(again).instructions, p.instructions);
  EXPECT_EQ(write_program(read_program(sample())).find("index_float"), std::string::npos);
  // 2 (fp16) is not a width the data path reads; a plain LOAD with the key is no gather.
  for (const std::string& bad : {std::string("elem=4 extent=4,3 stride=16 index=0x0 table_rows=10 index_float=2"),
                                 std::string("elem=4 extent=3 index_float=4")}) {
    std::string t = sample();
    const std::string from = bad.find("index=") != std::string::npos ? "elem=4 extent=4,3 stride=16 index=0x0 table_rows=10"
                                                                     : "elem=4 extent=3";
    t.replace(t.find(from), from.size(), bad);
    bool shape = false;
    for (const CheckIssue& i : check_program(read_program(t), tiny_fp32()))
      shape = shape || (i.kind == CheckKind::Shape && i.message.find("index_float=") != std::string::npos);
    EXPECT_TRUE(shape) << bad;
  }
}

}  // namespace
}  // namespace npu::isa
