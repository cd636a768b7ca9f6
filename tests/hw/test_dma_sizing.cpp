// The DMA front end's sizing (dma_sizing.hpp): Little's law per channel, the issue width, and
// the per-channel outstanding window with its issue cadence (dma_timing.hpp).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "npu/hw/dma/dma_sizing.hpp"
#include "npu/hw/dma/dma_timing.hpp"
#include "npu/hw_config/hw_config.hpp"

using namespace npu;

namespace {
HwConfig sizing_preset(const std::string& name) { return load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/" + name); }
}  // namespace

TEST(DmaSizing, LittlesLawOnTheHbm2Preset) {
  // configs/hbm2-npu.yaml leaves dma.max_outstanding and dma.requests_per_cycle out.
  //   channel_gbps = 2400 MT/s x 128 bit / 8 = 38.4 GB/s (= B/ns)
  //   DDR latency  = tRP + tRCD + CL + BL/2 + 1 = 17 + 17 + 17 + 2 + 1 = 54 tCK
  //                  x tCK (2000 / 2400 = 0.8333 ns) = 45 ns
  //   SRAM + issue = latency 2 + ceil(64 B / 1024 B per cycle) 1 + issue 1 = 4 cycles at 1 GHz = 4 ns
  //   N = ceil(38.4 B/ns x 49 ns / 64 B) = ceil(29.4) = 30 per channel, 16 channels.
  const HwConfig hw = sizing_preset("hbm2-npu.yaml");
  EXPECT_EQ(hw.dma.max_outstanding, 0);  // "derive"
  const hw::DmaSizing s = hw::dma_sizing(hw);
  EXPECT_DOUBLE_EQ(s.channel_gbps, 38.4);
  EXPECT_NEAR(s.loaded_latency_ns, 49.0, 1e-9);
  EXPECT_EQ(s.outstanding_per_channel, 30);
  EXPECT_TRUE(s.outstanding_derived);
  EXPECT_EQ(s.requests_per_cycle, 16);
  EXPECT_TRUE(s.width_derived);
}

TEST(DmaSizing, EdgePresetKeepsItsExplicitWindowAndWouldDeriveTwenty) {
  HwConfig hw = sizing_preset("edge-npu-ddr4.yaml");
  hw::DmaSizing s = hw::dma_sizing(hw);
  EXPECT_EQ(s.outstanding_per_channel, 32);  // dma.max_outstanding: 32 in the file
  EXPECT_FALSE(s.outstanding_derived);
  EXPECT_EQ(s.requests_per_cycle, 1);  // one channel
  // Without the key: 3200 MT/s x 8 B = 25.6 B/ns; (22 + 22 + 22 + 4 + 1) = 71 tCK x 0.625 ns
  // = 44.375 ns, + (SRAM latency 2 + ceil(64 / 32) 2 + 1) ns = 49.375 ns;
  // ceil(25.6 x 49.375 / 64) = ceil(19.75) = 20.
  hw.dma.max_outstanding = 0;
  s = hw::dma_sizing(hw);
  EXPECT_NEAR(s.loaded_latency_ns, 49.375, 1e-9);
  EXPECT_EQ(s.outstanding_per_channel, 20);
}

TEST(DmaSizing, ExplicitKeysWinAndTheWindowIsClamped) {
  HwConfig hw = sizing_preset("hbm2-npu.yaml");
  hw.dma.max_outstanding = 7;
  hw.dma.requests_per_cycle = 3;
  hw::DmaSizing s = hw::dma_sizing(hw);
  EXPECT_EQ(s.outstanding_per_channel, 7);
  EXPECT_EQ(s.requests_per_cycle, 3);
  EXPECT_FALSE(s.outstanding_derived);
  EXPECT_FALSE(s.width_derived);
  // A pathological derived value stays within the key's limit: 1 B bursts at 614 GB/s.
  hw.dma.max_outstanding = 0;
  hw.dma.burst_bytes = 1;
  hw.ddr.timing.t_rp = hw.ddr.timing.t_rcd = hw.ddr.timing.cl = 100000;
  EXPECT_EQ(hw::dma_sizing(hw).outstanding_per_channel, 4096);
}

TEST(OutstandingWindow, IssuesSeveralRequestsPerCycle) {
  // Two requests per 1000 ps cycle, no window limit reached: 0, 0, 1000, 1000, 2000.
  hw::OutstandingWindow w(8, 1000, 2, 1);
  w.reset(0);
  std::vector<std::uint64_t> issue;
  for (int i = 0; i < 5; ++i) {
    const std::uint64_t t = w.next_issue_ps(0);
    issue.push_back(t);
    w.issued(0, t);
    w.completed(0, t + 50000);
  }
  EXPECT_EQ(issue, (std::vector<std::uint64_t>{0, 0, 1000, 1000, 2000}));
}

TEST(OutstandingWindow, ChannelsHaveTheirOwnWindow) {
  // One outstanding per channel, 4 per cycle, latency 10 ns: requests to channels 0, 1, 0, 1
  // issue at 0, 0 (the other channel is free), 10000, 10000 (each waits for its channel's).
  hw::OutstandingWindow w(1, 1000, 4, 2);
  w.reset(0);
  std::vector<std::uint64_t> issue;
  for (int ch : {0, 1, 0, 1}) {
    const std::uint64_t t = w.next_issue_ps(ch);
    issue.push_back(t);
    w.issued(ch, t);
    w.completed(ch, t + 10000);
  }
  EXPECT_EQ(issue, (std::vector<std::uint64_t>{0, 0, 10000, 10000}));
  EXPECT_EQ(w.all_done_ps(), 20000u);
}

TEST(OutstandingWindow, PendingCompletionsAreRecordedInIssueOrder) {
  // Window of 2 on one channel; completion known only later (a combined SRAM write).
  hw::OutstandingWindow w(2, 1000, 1, 1);
  w.reset(0);
  w.issued(0, 0);
  w.issued(0, 1000);
  EXPECT_TRUE(w.needs_completion(0));  // both in flight, neither completion known
  EXPECT_THROW(w.issued(0, 2000), std::logic_error);
  w.completed(0, 7000);  // the first request
  w.completed(0, 9000);  // the second
  EXPECT_FALSE(w.needs_completion(0));
  EXPECT_EQ(w.next_issue_ps(0), 7000u);  // third waits for the first
  EXPECT_THROW(w.completed(0, 1), std::logic_error);  // nothing pending
  EXPECT_THROW(hw::OutstandingWindow(0, 1000, 1, 1), std::invalid_argument);
}
