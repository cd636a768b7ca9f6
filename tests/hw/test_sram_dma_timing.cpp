// SRAM and DMA timing cores, without elaboration; expectations derived in the comments.
#include <gtest/gtest.h>

#include <vector>

#include "npu/hw/act_unit/act_unit_timing.hpp"
#include "npu/hw/dma/dma_timing.hpp"
#include "npu/hw/sram/sram_timing.hpp"

using npu::hw::SramTiming;

namespace {
npu::SramConfig sram_cfg() {
  npu::SramConfig c;
  c.capacity_bytes = 4096;  // 4 contiguous banks of 1 KiB (interleaved: test_sram_interleave.cpp)
  c.banks = 4;
  c.bank_interleave_bytes = 1024;
  c.bytes_per_cycle = 64;
  c.latency_cycles = 2;
  return c;
}
}  // namespace

TEST(SramTiming, AccessCostsBytesOverBandwidthPlusLatency) {
  SramTiming s(sram_cfg());
  // 256 B on one bank at 64 B/cycle: 4 cycles of port time + 2 latency -> done at 10 + 6.
  const auto r = s.access(10, 0, 256, false);
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.start_cycle, 10u);
  EXPECT_EQ(r.done_cycle, 16u);
  EXPECT_EQ(r.conflict_cycles, 0u);
}

TEST(SramTiming, SamePortSameBankSerialises) {
  SramTiming s(sram_cfg());
  s.access(0, 0, 256, false);  // read port of bank 0 busy [0, 4)
  // A second read of bank 0 at cycle 1 waits until 4: 3 conflict cycles, done 4 + 4 + 2.
  const auto r = s.access(1, 512, 256, false);
  EXPECT_EQ(r.start_cycle, 4u);
  EXPECT_EQ(r.conflict_cycles, 3u);
  EXPECT_EQ(r.done_cycle, 10u);
  EXPECT_EQ(s.stats().conflict_cycles, 3u);
}

TEST(SramTiming, WritePortAndOtherBanksDoNotConflict) {
  SramTiming s(sram_cfg());
  s.access(0, 0, 256, false);
  EXPECT_EQ(s.access(0, 0, 256, true).conflict_cycles, 0u);      // write port of bank 0
  EXPECT_EQ(s.access(0, 1024, 256, false).conflict_cycles, 0u);  // read port of bank 1
}

TEST(SramTiming, SpanningBanksUsesThemInParallel) {
  SramTiming s(sram_cfg());
  // [896, 1280): 128 B in bank 0 (2 cycles) and 256 B in bank 1 (4 cycles) -> done 4 + 2.
  EXPECT_EQ(s.access(0, 896, 384, false).done_cycle, 6u);
}

TEST(SramTiming, OutOfOrderRequestsFillEarlierGaps) {
  SramTiming s(sram_cfg());
  s.access(10, 0, 256, false);  // [10, 14)
  // A request at 0 of 4 cycles fits [0, 4): no conflict even though it arrives later.
  EXPECT_EQ(s.access(0, 0, 256, false).conflict_cycles, 0u);
  // A request at 8 of 4 cycles overlaps [10, 14) -> starts at 14 (6 conflict cycles).
  EXPECT_EQ(s.access(8, 0, 256, false).start_cycle, 14u);
}

TEST(SramTiming, CapacityIsEnforced) {
  SramTiming s(sram_cfg());
  EXPECT_TRUE(s.access(0, 4032, 64, true).ok);   // last 64 bytes
  EXPECT_FALSE(s.access(0, 4032, 65, true).ok);  // one byte past
  EXPECT_FALSE(s.in_range(5000, 1));
}

TEST(SramTiming, IdealAnswersAtOnce) {
  SramTiming s(sram_cfg(), true);
  const auto r = s.access(7, 0, 4096, false);
  EXPECT_EQ(r.done_cycle, 7u);
  EXPECT_EQ(s.stats().read_bytes, 4096u);
}

TEST(BurstSplitter, CutsRowsAtBurstBoundaries) {
  // 2 rows of 100 B (extent[0] = 50 fp16) starting at 0x1010, row stride 0x200, burst 64:
  // row 0: [0x1010, 0x1040) 48 B, [0x1040, 0x1074) 52 B; row 1 the same at +0x200.
  npu::isa::DmaDesc d;
  d.ddr_addr = 0x1010;
  d.sram_addr = 0;
  d.elem_bytes = 2;
  d.extent = {50, 2, 1};
  d.ddr_stride_bytes = {0x200, 0};
  npu::hw::BurstSplitter s(d, 64);
  std::vector<npu::hw::DmaBurst> got;
  npu::hw::DmaBurst b;
  while (s.next(b)) got.push_back(b);
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0].ddr_addr, 0x1010u);
  EXPECT_EQ(got[0].bytes, 48u);
  EXPECT_EQ(got[1].ddr_addr, 0x1040u);
  EXPECT_EQ(got[1].bytes, 52u);
  EXPECT_EQ(got[2].ddr_addr, 0x1210u);
  EXPECT_EQ(got[2].sram_addr, 100u);  // SRAM side packed
  EXPECT_EQ(got[3].sram_addr, 148u);
  EXPECT_EQ(npu::hw::BurstSplitter::count(d, 64), 4u);
}

TEST(BurstSplitter, ThreeDimensionalWalk) {
  // 3 planes x 2 rows x 64 B aligned rows = 6 bursts; plane stride 0x1000.
  npu::isa::DmaDesc d;
  d.ddr_addr = 0;
  d.elem_bytes = 1;
  d.extent = {64, 2, 3};
  d.ddr_stride_bytes = {0x100, 0x1000};
  npu::hw::BurstSplitter s(d, 64);
  npu::hw::DmaBurst b;
  std::vector<std::uint64_t> addrs;
  while (s.next(b)) addrs.push_back(b.ddr_addr);
  EXPECT_EQ(addrs, (std::vector<std::uint64_t>{0x0, 0x100, 0x1000, 0x1100, 0x2000, 0x2100}));
}

TEST(OutstandingWindow, LimitsRequestsInFlight) {
  // 2 outstanding, one issue per 1000 ps, 10 ns memory latency: requests issue at 0 and
  // 1000; the third waits for the first to complete (10000), the fourth for the second (11000).
  npu::hw::OutstandingWindow w(2, 1000);
  w.reset(0);
  std::vector<std::uint64_t> issue;
  for (int i = 0; i < 4; ++i) {
    const std::uint64_t t = w.next_issue_ps();
    issue.push_back(t);
    w.issued(t, t + 10000);
  }
  EXPECT_EQ(issue, (std::vector<std::uint64_t>{0, 1000, 10000, 11000}));
  EXPECT_EQ(w.all_done_ps(), 21000u);
}

TEST(VectorCost, StandAloneOpsStreamAtLanesPerCycle) {
  npu::HwConfig hw;
  hw.act_unit.lanes = 16;
  hw.act_unit.default_latency_cycles = 4;
  hw.act_unit.op_latency_cycles["relu"] = 1;
  npu::isa::Instruction act;
  act.op = npu::isa::Opcode::Act;
  npu::isa::ActParams a;
  a.op = npu::isa::ActOp::Relu;
  a.elems = 1000;
  act.params = a;
  // ceil(1000 / 16) = 63 cycles + relu latency 1.
  EXPECT_EQ(npu::hw::vector_cost(act, hw).cycles(), 64u);
  npu::isa::Instruction pool;
  pool.op = npu::isa::Opcode::Pool;
  npu::isa::PoolParams p;
  p.op = npu::isa::PoolOp::Max;
  p.c = 4, p.h_in = p.w_in = 8, p.kh = p.kw = 2, p.stride_h = p.stride_w = 2;
  pool.params = p;
  // 4 x 4 x 4 outputs x 4 window elements = 256 lane-ops / 16 = 16 cycles + default 4.
  EXPECT_EQ(npu::hw::vector_cost(pool, hw).cycles(), 20u);
}

TEST(VectorCost, MoveStreamsLikeAnIdentityAct) {
  npu::HwConfig hw;
  hw.act_unit.lanes = 16;
  hw.act_unit.default_latency_cycles = 4;
  hw.act_unit.op_latency_cycles["identity"] = 2;
  npu::isa::Instruction mv;
  mv.op = npu::isa::Opcode::Move;
  npu::isa::MoveParams m;
  m.rank = 3;
  m.extent = {10, 10, 10, 1, 1, 1};  // 1000 elements, whatever the strides
  m.in_stride = {100, 10, 1, 0, 0, 0};
  m.out_stride = {1, 10, 100, 0, 0, 0};
  mv.params = m;
  // ceil(1000 / 16) = 63 cycles + the identity latency 2.
  EXPECT_EQ(npu::hw::vector_cost(mv, hw).cycles(), 65u);
  EXPECT_EQ(npu::hw::vector_cost(mv, hw).elements, 1000u);
}

TEST(VectorCost, SoftmaxAndLayerNormMakeThreePasses) {
  npu::HwConfig hw;
  hw.act_unit.lanes = 16;
  hw.act_unit.default_latency_cycles = 4;
  hw.act_unit.op_latency_cycles["softmax"] = 7;
  npu::isa::Instruction act;
  act.op = npu::isa::Opcode::Act;
  npu::isa::ActParams a;
  a.op = npu::isa::ActOp::Softmax;
  a.elems = 1000;  // 8 rows of 125
  a.channels = 8;
  act.params = a;
  // 3 passes (max; exp + sum; scale) x ceil(1000 / 16) = 3 x 63 = 189 stream cycles,
  // + the softmax latency 7 = 196.
  const auto softmax = npu::hw::vector_cost(act, hw);
  EXPECT_EQ(softmax.stream_cycles, 189u);
  EXPECT_EQ(softmax.cycles(), 196u);
  // layer_norm is not listed: 3 passes (mean; variance; normalise) x 63 + default 4 = 193.
  a.op = npu::isa::ActOp::LayerNorm;
  a.alpha = 1e-5f;
  act.params = a;
  EXPECT_EQ(npu::hw::vector_cost(act, hw).cycles(), 193u);
  // Every element-wise op streams once: gelu ceil(1000 / 16) = 63 + default 4 = 67.
  a.op = npu::isa::ActOp::Gelu;
  act.params = a;
  EXPECT_EQ(npu::hw::vector_cost(act, hw).cycles(), 67u);
}

TEST(VectorCost, BroadcastEltwiseIsOnePassOverElems) {
  npu::HwConfig hw;
  hw.act_unit.lanes = 16;
  hw.act_unit.default_latency_cycles = 4;
  hw.act_unit.op_latency_cycles["div"] = 9;
  npu::isa::Instruction el;
  el.op = npu::isa::Opcode::Eltwise;
  npu::isa::EltwiseParams e;
  e.op = npu::isa::EltwiseOp::Div;
  e.elems = 1000;
  e.b_elems = 10;  // a per-row [1,10,1] divisor against [1,10,100]
  e.b_inner = 100;
  el.params = e;
  // One pass: ceil(1000 / 16) = 63 + div latency 9 = 72, as without broadcasting.
  EXPECT_EQ(npu::hw::vector_cost(el, hw).cycles(), 72u);
  e.b_elems = 0;
  e.b_inner = 1;
  el.params = e;
  EXPECT_EQ(npu::hw::vector_cost(el, hw).cycles(), 72u);
  // rsub is not listed: 63 + default 4.
  e.op = npu::isa::EltwiseOp::RSub;
  el.params = e;
  EXPECT_EQ(npu::hw::vector_cost(el, hw).cycles(), 67u);
}
