// The DMA's direct burst call (BurstTimingTarget, docs/performance.md "The DMA's direct burst
// call") against the TLM socket it replaces: the same program run both ways on every NPU preset
// gives the same record for every instruction, to the picosecond. The programs mix what the
// per-burst path meets: LOADs and STOREs on the two engines at once (they contend in the DDR
// model), strided rows that start mid-burst (short first bursts), planes, and a DMA burst wider
// than the DRAM's (one request served as several DRAM bursts).
#include <gtest/gtest.h>

#include "npu_test_util.hpp"

using namespace npu;
using namespace npu::test;

namespace {

HwConfig preset(const std::string& name) { return load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/" + name); }

isa::Instruction strided(isa::Opcode op, const std::string& tensor, std::uint64_t ddr, std::uint32_t sram,
                         std::array<std::uint32_t, 3> extent, std::array<std::uint64_t, 2> stride) {
  isa::Instruction in = dma(op, "mix", tensor, ddr, sram, 1);
  auto& d = std::get<isa::DmaDesc>(in.params);
  d.extent = extent;
  d.ddr_stride_bytes = stride;
  return in;
}

/// Two LOAD streams and two STORE streams, independent (no tokens), so both engines run at once.
isa::Program mixed_traffic() {
  isa::Program p;
  p.tensors.push_back({"x", isa::TensorKind::Input, 0, 4u << 20});
  p.tensors.push_back({"y", isa::TensorKind::Output, 8u << 20, 2u << 20});
  using isa::Opcode;
  p.instructions.push_back(dma(Opcode::Load, "mix", "x", 0, 0, 200u << 10));
  p.instructions.push_back(strided(Opcode::Load, "x", 13, 256u << 10, {100, 37, 3}, {4100, 200000}));
  p.instructions.push_back(dma(Opcode::Load, "mix", "x", 1u << 20, 300u << 10, 96u << 10));
  p.instructions.push_back(dma(Opcode::Store, "mix", "y", 8u << 20, 0, 64u << 10));
  p.instructions.push_back(strided(Opcode::Store, "y", (8u << 20) + 77, 64u << 10, {333, 50, 2}, {1000, 70000}));
  p.instructions.push_back(dma(Opcode::Store, "mix", "y", 9u << 20, 128u << 10, 128u << 10));
  return p;
}

void expect_same_records(const ChildResult& direct, const ChildResult& socket) {
  ASSERT_TRUE(direct.ok) << direct.error;
  ASSERT_TRUE(socket.ok) << socket.error;
  ASSERT_EQ(direct.records.size(), socket.records.size());
  for (std::size_t i = 0; i < direct.records.size(); ++i) {
    const hw::ExecRecord &a = direct.records[i], &b = socket.records[i];
    SCOPED_TRACE("instruction " + std::to_string(i));
    EXPECT_EQ(a.start_ps, b.start_ps);
    EXPECT_EQ(a.end_ps, b.end_ps);
    EXPECT_EQ(a.ddr_read_bytes, b.ddr_read_bytes);
    EXPECT_EQ(a.ddr_write_bytes, b.ddr_write_bytes);
    EXPECT_EQ(a.ddr_bursts, b.ddr_bursts);
    EXPECT_EQ(a.ddr_latency_ps, b.ddr_latency_ps);
    EXPECT_EQ(a.ddr_bandwidth_stall_ps, b.ddr_bandwidth_stall_ps);
    EXPECT_EQ(a.sram_conflict_cycles, b.sram_conflict_cycles);
  }
  // Not a vacuous comparison: the program moved its bytes and took time.
  std::uint64_t bytes = 0;
  for (const auto& r : direct.records) bytes += r.ddr_read_bytes + r.ddr_write_bytes;
  EXPECT_GE(bytes, (200u + 96u + 64u + 128u) << 10);
  EXPECT_GT(direct.records.back().end_ps, 0u);
}

void compare_on(const HwConfig& hw) {
  hw::NpuTopOptions direct, socket;
  socket.direct_burst_timing = false;
  const isa::Program p = mixed_traffic();
  expect_same_records(run_in_child(p, hw, direct), run_in_child(p, hw, socket));
}

}  // namespace

TEST(DmaDirectTiming, SameRecordsAsTheSocketOnHbm2) { compare_on(preset("hbm2-npu.yaml")); }
TEST(DmaDirectTiming, SameRecordsAsTheSocketOnDdr4) { compare_on(preset("edge-npu-ddr4.yaml")); }
TEST(DmaDirectTiming, SameRecordsAsTheSocketOnLpddr4) { compare_on(preset("mobile-npu-lpddr4.yaml")); }
TEST(DmaDirectTiming, SameRecordsAsTheSocketOnTpuV1Ddr3) { compare_on(preset("tpu-v1-like.yaml")); }

TEST(DmaDirectTiming, SameRecordsWhenOneDmaBurstIsSeveralDramBursts) {
  // edge preset: DDR4 x64 BL8 = 64 B DRAM bursts; 256 B DMA bursts are 4 DRAM bursts each,
  // offered together and completed in turn (DdrModule::serve_span's many-burst branch).
  HwConfig hw = preset("edge-npu-ddr4.yaml");
  ASSERT_EQ(hw.ddr.burst_bytes(), 64);
  hw.dma.burst_bytes = 256;
  compare_on(hw);
}
