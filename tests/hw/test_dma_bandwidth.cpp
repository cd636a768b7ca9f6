// Memory-bound streams reach the DDR bandwidth they are given: the DMA front end (issue width,
// per-channel outstanding window by Little's law, SRAM write combining) on the 16-channel HBM2
// preset, and the single-channel edge preset unchanged.
#include <gtest/gtest.h>

#include "npu/hw/dma/dma_sizing.hpp"
#include "npu_test_util.hpp"

using namespace npu;
using namespace npu::test;

namespace {

HwConfig hbm2_preset() { return load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/hbm2-npu.yaml"); }

/// One layer that only streams: LOAD `bytes` from DDR 0 into SRAM 0.
isa::Program load_stream(std::uint32_t bytes) {
  isa::Program p;
  p.tensors.push_back({"x", isa::TensorKind::Input, 0, bytes});
  p.instructions.push_back(dma(isa::Opcode::Load, "stream", "x", 0, 0, bytes));
  return p;
}

double gbps(std::uint64_t bytes, std::uint64_t ps) { return double(bytes) * 1000.0 / double(ps); }

}  // namespace

TEST(DmaBandwidth, LoadStreamReachesSeventyPercentOfHbm2Peak) {
  // hbm2-npu: 16 channels x 128 bit / 8 x 2400 MT/s = 16 x 38.4 = 614.4 GB/s peak. The SRAM
  // takes 1024 B per cycle per bank port at 1 GHz (1024 GB/s, combined writes), so the DDR side
  // bounds the stream. 4 MiB = 65536 bursts of 64 B, 4096 per channel: 6826.7 ns at the peak.
  // Upper: refresh takes tRFC / tREFI = 312 / 4680 = 6.7 % of every channel: at most
  // 614.4 x (1 - 312/4680) = 573.4 GB/s (93.3 %).
  // Lower, from the preset (each term at its worst):
  //  - Little's law: a channel's window of W = 30 requests over the loaded latency
  //    L = (tRP + tRCD + CL + BL/2 + 1) x tCK + 4 core cycles = 54 x 0.8333 + 4 = 49 ns carries
  //    30 x 64 B / 49 ns = 39.2 GB/s >= 38.4: the window keeps the data bus busy, the first
  //    access aside (49 ns);
  //  - row switches: rorabacochbg puts bank group and channel below the column, so each channel
  //    reads 4 rows (one per bank group) side by side and moves to 4 new rows every
  //    4 x 1 KiB: 4096 / (16 x 4) = 64 steps per channel, each exposing at most tRP + tRCD =
  //    34 tCK = 28.3 ns: 1813 ns;
  //  - refresh: one rank, first due at tREFI, so at most T / tREFI refreshes in T, each
  //    tRP + tRFC = 329 tCK: a share of 329 / 4680 = 7.03 %;
  //  - reads only: no bus turnaround (tWTR, tRTRS do not arise).
  //  T_max = (6826.7 + 1813 + 49) / (1 - 0.0703) = 9346 ns: at least 448.8 GB/s (73.0 %),
  //  above the goal of issue #11 (>= 70 % of the peak, 430.1 GB/s).
  const HwConfig hw = hbm2_preset();
  const double peak = 16 * 16 * 2400e6 / 1e9;
  ASSERT_DOUBLE_EQ(hw.ddr.peak_gbps(), peak);
  const std::uint32_t bytes = 4u << 20;
  const DdrTimingCk& t = hw.ddr.timing;
  const double tck_ns = hw.ddr.tck_ns();
  const double latency_ns = (t.t_rp + t.t_rcd + t.cl + hw.ddr.burst_length / 2 + 1) * tck_ns +
                            (hw.sram.latency_cycles + 2) * hw.core_period_ns();
  ASSERT_NEAR(latency_ns, 49.0, 1e-9);
  const int window = hw::dma_sizing(hw).outstanding_per_channel;
  ASSERT_GE(window * 64 / latency_ns, peak / 16) << window;  // Little's law: the window covers the latency
  const double row_steps = double(bytes) / hw.ddr.channels / hw.ddr.bank_groups / 1024;  // 1 KiB rows
  const double t_max_ns =
      (bytes / peak + row_steps * (t.t_rp + t.t_rcd) * tck_ns + latency_ns) / (1 - double(t.t_rp + t.t_rfc) / t.t_refi);
  const double floor_gbps = bytes / t_max_ns;
  ASSERT_NEAR(floor_gbps, 448.78, 0.01);  // the figure worked above
  const auto r = run_in_child(load_stream(bytes), hw, false);
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.records.size(), 1u);
  EXPECT_EQ(r.records[0].ddr_read_bytes, bytes);
  const double got = gbps(bytes, r.records[0].end_ps - r.records[0].start_ps);
  EXPECT_GE(got, floor_gbps) << got << " GB/s";
  EXPECT_LE(got, peak * (1.0 - 312.0 / 4680.0)) << got << " GB/s";
}

TEST(DmaBandwidth, OneRequestPerCycleCapsTheStreamAtSixtyFourGBps) {
  // The same stream with the front end of before: one request per core cycle caps an engine at
  // 64 B x 1 GHz = 64 GB/s = 10.4 % of 614.4 GB/s, whatever the window.
  HwConfig hw = hbm2_preset();
  hw.dma.requests_per_cycle = 1;
  const std::uint32_t bytes = 1u << 20;
  const auto r = run_in_child(load_stream(bytes), hw, false);
  ASSERT_TRUE(r.ok) << r.error;
  const double got = gbps(bytes, r.records[0].end_ps - r.records[0].start_ps);
  EXPECT_LE(got, 64.0) << got << " GB/s";
  EXPECT_GE(got, 0.9 * 64.0) << got << " GB/s";
}
