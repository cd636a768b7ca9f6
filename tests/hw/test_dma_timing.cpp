// The DMA timing core's per-descriptor arithmetic, without elaboration: DRAM bytes a request
// touches, SRAM line combining and the latency / bandwidth stall split (docs/timing.md, "DMA").
// BurstSplitter and OutstandingWindow are tested in test_sram_dma_timing.cpp.
#include <gtest/gtest.h>

#include "npu/hw/dma/dma_timing.hpp"

using npu::hw::DmaBurst;
using npu::hw::DmaStallSplit;
using npu::hw::dram_bytes_touched;
using npu::hw::LoadLineBuffer;
using npu::hw::SramLines;

TEST(DmaTiming, DramMovesWholeBurstsARequestTouches) {
  // 64 B DRAM bursts: [0, 64) is one burst.
  EXPECT_EQ(dram_bytes_touched(0, 64, 64), 64u);
  // [32, 96) touches bursts 0 and 1: 2 x 64 = 128 B.
  EXPECT_EQ(dram_bytes_touched(32, 64, 64), 128u);
  // [60, 68) straddles the boundary at 64: 2 x 64 = 128 B for 8 B of data.
  EXPECT_EQ(dram_bytes_touched(60, 8, 64), 128u);
  // [128, 129) is one burst: 64 B.
  EXPECT_EQ(dram_bytes_touched(128, 1, 64), 64u);
  // No DRAM geometry (burst 0): the request's own bytes.
  EXPECT_EQ(dram_bytes_touched(100, 10, 0), 10u);
}

TEST(DmaTiming, DramBytesTouchedShiftsEqualTheDivisions) {
  // The power-of-two path (shifts) against the burst count by division, ceil((a + n) / B) -
  // floor(a / B) bursts of B bytes; and a 48 B burst (not a power of two) by hand.
  for (std::uint64_t burst : {32u, 64u, 128u}) {
    for (std::uint64_t a = 0; a < 3 * burst; a += 7) {
      for (std::uint32_t n = 1; n < 3 * burst; n += 5) {
        const std::uint64_t bursts = (a + n + burst - 1) / burst - a / burst;
        ASSERT_EQ(dram_bytes_touched(a, n, burst), bursts * burst) << a << " " << n << " " << burst;
      }
    }
  }
  EXPECT_EQ(dram_bytes_touched(40, 16, 48), 96u);  // [40, 56) touches [0, 48) and [48, 96)
  EXPECT_EQ(dram_bytes_touched(48, 48, 48), 48u);  // exactly one burst
}

TEST(DmaTiming, StoreReadsOneLineForTheBurstsItFeeds) {
  // 256 B lines > 64 B bursts: combining; the descriptor's SRAM data end at 1000.
  const SramLines lines(256, 64, 1000);
  EXPECT_TRUE(lines.combine());
  // Burst at SRAM 0: the line [0, 0 + 256).
  const auto a = lines.store_read(DmaBurst{0, 0, 64});
  EXPECT_EQ(a.lo, 0u);
  EXPECT_EQ(a.hi, 256u);
  EXPECT_TRUE(a.contains(192, 64));   // [192, 256) is inside
  EXPECT_FALSE(a.contains(224, 64));  // [224, 288) is not
  // Burst at SRAM 900: 900 + 256 = 1156, clipped at the end 1000.
  const auto b = lines.store_read(DmaBurst{0, 900, 64});
  EXPECT_EQ(b.lo, 900u);
  EXPECT_EQ(b.hi, 1000u);
  // A burst wider than the line reads its own bytes: max(256, 512) = 512 -> [0, 512).
  EXPECT_EQ(SramLines(256, 64, 4096).store_read(DmaBurst{0, 0, 512}).hi, 512u);
  // 64 B lines = 64 B bursts: no combining, the burst itself [128, 192).
  const SramLines each(64, 64, 1000);
  EXPECT_FALSE(each.combine());
  EXPECT_EQ(each.store_read(DmaBurst{0, 128, 64}).hi, 192u);
}

TEST(DmaTiming, LoadWritesALineOnceItsBurstsHaveArrived) {
  const SramLines lines(256, 64, 4096);
  EXPECT_FALSE(lines.load_line_full(192));  // 3 of 4 bursts of a 256 B line
  EXPECT_TRUE(lines.load_line_full(256));
  EXPECT_TRUE(SramLines(64, 64, 4096).load_line_full(1));  // not combining: every burst

  LoadLineBuffer p;
  EXPECT_TRUE(p.empty());
  p.add(1, DmaBurst{0, 512, 64}, 64, 1000);
  p.add(0, DmaBurst{64, 576, 64}, 128, 900);
  // The line starts at the first burst's SRAM address, holds 64 + 64 B and is ready when the
  // later of the two arrivals (1000 ps, 900 ps) is in.
  EXPECT_EQ(p.sram_addr(), 512u);
  EXPECT_EQ(p.bytes(), 128u);
  EXPECT_EQ(p.ready_ps(), 1000u);
  ASSERT_EQ(p.arrivals().size(), 2u);
  EXPECT_EQ(p.arrivals()[0].channel, 1);
  EXPECT_EQ(p.arrivals()[1].dram_bytes, 128u);
  p.clear();
  EXPECT_TRUE(p.empty());
  EXPECT_EQ(p.bytes(), 0u);
  EXPECT_EQ(p.ready_ps(), 0u);
  p.add(0, DmaBurst{128, 640, 64}, 64, 50);  // a new line starts at the new burst
  EXPECT_EQ(p.sram_addr(), 640u);
  EXPECT_EQ(p.ready_ps(), 50u);
}

TEST(DmaTiming, FirstBurstWaitIsLatencyTheRestBandwidth) {
  // 12.8 GB/s = 0.0128 B/ps. Descriptor of 6400 B from 1000 ps to 601000 ps (600000 ps).
  DmaStallSplit split(1000);
  split.completed(51000, 64);   // first burst: waited 50000 ps; 64 B at peak = 5000 ps
  split.completed(52000, 640);  // later completions do not count
  const auto s = split.split(601000, 6400, 12.8);
  // Latency = 50000 - 5000 = 45000 ps.
  EXPECT_EQ(s.latency_ps, 45000u);
  // At peak 6400 B take 500000 ps; + latency = 545000; 600000 - 545000 = 55000 ps.
  EXPECT_EQ(s.bandwidth_stall_ps, 55000u);
}

TEST(DmaTiming, NoStallWhenFasterThanPeak) {
  // 64 B at 12.8 GB/s = 5000 ps; the first burst came after 4000 ps: no latency. The whole
  // 128 B descriptor took 9000 ps < 10000 ps at peak: no bandwidth stall either.
  DmaStallSplit split(0);
  split.completed(4000, 64);
  const auto s = split.split(9000, 128, 12.8);
  EXPECT_EQ(s.latency_ps, 0u);
  EXPECT_EQ(s.bandwidth_stall_ps, 0u);
}
