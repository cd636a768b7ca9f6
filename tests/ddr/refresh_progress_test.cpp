// Refresh must leave requests time: the tREFI rule (min_refresh_interval_ck) and the
// controller's progress watchdog (kMaxRefreshesWithoutProgress).
#include <gtest/gtest.h>

#include "ddr_test_util.hpp"
#include "npu/hw/ddr/ddr_config_check.hpp"
#include "npu/hw/ddr/ddr_controller.hpp"
#include "npu/hw_config/ddr_presets.hpp"
#include "npu/hw_config/ddr_refresh_rule.hpp"

namespace npu::hw {
namespace {

TEST(RefreshProgress, MinimumIntervalByHandOnDdr4_3200) {
  // tRFC 560 + tRCD 22 + max(tRC 74, CWL 16 + BL/2 4 + tWR 24 + tRP 22 = 66) + 2 ranks x 4 bg
  // x 4 banks = 32 -> 688 tCK; JEDEC's 12480 (7.8 us) is 18x that.
  EXPECT_EQ(min_refresh_interval_ck(ddr4_3200()), 688);
  // HBM2 (hbm2.yaml): tRFC 260 + tRCD 14 + max(tRC 48, CWL 4 + 2 + tWR 16 + tRP 14 = 36) + 16.
  const DdrTimingCk& h = hbm2().timing;
  EXPECT_EQ(min_refresh_interval_ck(hbm2()),
            h.t_rfc + h.t_rcd + std::max(h.t_rc, h.cwl + 2 + h.t_wr + h.t_rp) + 16);
  for (const auto& name : ddr_preset_names())
    EXPECT_GE(ddr_preset(name).timing.t_refi, min_refresh_interval_ck(ddr_preset(name))) << name;
}

TEST(RefreshProgress, TrefiOneClockAboveTrfcIsRejected) {
  DdrConfig c = ddr4_3200();
  c.timing.t_refi = c.timing.t_rfc + 1;
  EXPECT_THROW(validate_ddr_config(c, "x.yaml"), ConfigError);
  try {
    validate_ddr_config(c, "x.yaml");
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("ddr.tREFI = 561 tCK leaves 1 tCK between refreshes"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("set tREFI >= 688 tCK"), std::string::npos) << e.what();
  }
  c.timing.t_refi = 687;
  EXPECT_THROW(validate_ddr_config(c, "x.yaml"), ConfigError);
  c.timing.t_refi = 688;
  EXPECT_NO_THROW(validate_ddr_config(c, "x.yaml"));
}

TEST(RefreshProgress, SmallestAllowedIntervalStillServesEveryRequest) {
  // tREFI = 688 (the bound): 2000 mixed requests over every bank, reads and writes to
  // rows that conflict, so refresh keeps closing rows; all must be served.
  DdrConfig c = ddr4_3200();
  c.timing.t_refi = int(min_refresh_interval_ck(c));
  DdrSystem d(c);
  for (int i = 0; i < 2000; ++i) {
    const std::uint64_t addr = (std::uint64_t(i) * 0x9E3779B1u % (1u << 20)) * 64;
    d.offer(addr % d.capacity_bytes(), i % 3 == 2, 0);
  }
  d.drain();
  EXPECT_EQ(d.stats().reads + d.stats().writes, 2000u);
}

TEST(RefreshProgress, WatchdogEndsARunThatCannotProgress) {
  // A controller built without the config check (validate_ddr_config would refuse it):
  // tREFI = tRFC + 1 on DDR4-3200. After each REF the bank may open tRFC later, one clock
  // before the next refresh is due, so the read's RD never fits. The watchdog throws
  // after kMaxRefreshesWithoutProgress (1000) refreshes with the read still queued.
  DdrConfig c = ddr4_3200();
  c.timing.t_refi = c.timing.t_rfc + 1;
  DdrStats stats;
  stats.per_bank.resize(32);
  ChannelController ch(c, 0, &stats);
  ch.advance_to(2000);
  DdrRequest r;
  r.id = 1;
  r.arrival = 2000;
  ch.enqueue(r);
  try {
    ch.drain();
    FAIL() << "drain returned";
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("DDR channel 0 made no progress: 1 read(s) and 0 write(s) waited through 1000 refreshes "
                     "(1000 x tREFI = 561000 tCK)"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("set tREFI >= 688 tCK"), std::string::npos) << m;
  }
  // REFs by tick 2000: rank 0 due at 280 + 561 k (k = 0..3), rank 1 at 561 (k + 1) (k = 0..2):
  // 7; then the 1001st REF with the read waiting throws: 1008.
  EXPECT_EQ(stats.cmd_ref, 1008u);
}

TEST(RefreshProgress, SplitCursorIdleGapIsFastForwardedExactly) {
  // The TLM target (split cursors, one transaction at a time) sees long idle gaps when a HOST
  // instruction waits. Same check as DdrTiming.IdleGapFastForwardMatchesOneByOneRefresh, in
  // split-cursor mode: `slow` has a command log (fast-forward off), `fast` has none. REFs due
  // by T = 100 tREFI + 3000 = 1251000: rank 0 at 6240 + 12480 k, rank 1 at 12480 (k + 1),
  // k = 0..99: 200.
  DdrSystem fast(ddr4_3200()), slow(ddr4_3200());
  std::vector<DdrCommandRecord> log;
  slow.set_command_log(&log);
  const Tick t = 100 * 12480 + 3000;
  for (DdrSystem* d : {&fast, &slow}) {
    d->set_overlap_row_commands(true);
    for (int i = 0; i < 4; ++i) test::serve(*d, test::addr_of(*d, i % 2, i, 0, 0, 0), i == 3, 10 * i);
    EXPECT_EQ(test::serve(*d, test::addr_of(*d, 0, 0, 0, 0, 8), false, t), 49);  // closed bank: 49
    EXPECT_EQ(test::serve(*d, test::addr_of(*d, 1, 0, 0, 0, 0), true, t + 100), 16 + 22 + 4 + 1);
    d->drain();
  }
  EXPECT_EQ(fast.stats().cmd_ref, 200u);
  EXPECT_EQ(slow.stats().cmd_ref, 200u);
  EXPECT_EQ(fast.stats().cmd_pre, slow.stats().cmd_pre);
  EXPECT_EQ(fast.stats().cmd_act, slow.stats().cmd_act);
  EXPECT_EQ(fast.stats().last_done_ck, slow.stats().last_done_ck);
}

TEST(RefreshProgress, SplitCursorTeraCycleIdleGapCostsNoTime) {
  // 10^12 tCK idle in split-cursor mode (a HOST instruction of ~10^12 cycles): 160256410
  // REFs counted by arithmetic (see DdrTiming.TeraCycleIdleGapIsFastForwarded), not simulated.
  DdrSystem d(ddr4_3200());
  d.set_overlap_row_commands(true);
  EXPECT_EQ(test::serve(d, test::addr_of(d, 0, 0, 0, 0, 0), false, 0), 49);
  EXPECT_EQ(test::serve(d, test::addr_of(d, 0, 0, 0, 0, 8), false, 1000000000000), 49);
  EXPECT_EQ(d.stats().cmd_ref, 160256410u);
}

}  // namespace
}  // namespace npu::hw
