// Closed page in split-cursor mode (the TLM target, DdrSystem::serve one burst at a time): the
// auto-precharge of a column command with nothing else queued for its bank waits for the bank's
// next request, which cancels it when it arrived before that column command (a queue would have
// held it) and hits the row. Before, every burst closed its row: an NPU's DMA stream under
// `page_policy: closed` ran at a tenth of its open-page bandwidth with a 0 % row-hit rate, while
// `npu ddr run --page-policy closed` on the same traffic hit 99 % (new-user finding).
//
// Expected ticks by hand from configs/ddr/ddr4-3200.yaml: CL 22, tRCD 22, tRP 22, tRAS 52,
// tRTP 12, tCCD_S 4, tCCD_L 8, BL8 (4 tCK of data); a request accepted at tick a may issue from
// a + 1 (docs/ddr.md). Addresses 0 and 64 are columns 0 and 8 of one row of one bank
// (mapping rochrababgco: the column is the lowest field).
#include <gtest/gtest.h>

#include <vector>

#include "npu/hw/ddr/ddr_system.hpp"
#include "npu/hw_config/ddr_presets.hpp"

namespace npu::hw {
namespace {

struct Served {
  Tick first = 0, second = 0;
  DdrStats after_second, after_drain;
  std::vector<DdrCommandRecord> log;
};

// Two reads of one row, the second ready at `second_ready`, served one at a time.
Served two_reads(PagePolicy policy, Tick second_ready) {
  DdrConfig cfg = ddr_preset("ddr4-3200");
  cfg.page_policy = policy;
  DdrSystem ddr(cfg, "ddr4-3200");
  ddr.set_overlap_row_commands(true);  // as DdrModule and npu ddr run --one-at-a-time
  Served s;
  ddr.set_command_log(&s.log);
  s.first = ddr.serve(0, false, 0);
  s.second = ddr.serve(64, false, second_ready);
  s.after_second = ddr.stats();
  ddr.drain();
  s.after_drain = ddr.stats();
  return s;
}

TEST(DeferredPrecharge, ANextHitThatArrivedBeforeTheColumnCommandKeepsTheRowOpen) {
  // First read: ACT at 1, RD at 1 + tRCD = 23, done 23 + CL + 4 = 49. The second arrives at 10,
  // before that RD: queued by then, it is a hit and the row stays open; its RD waits tCCD_L after
  // the first: 31, done 31 + 26 = 57 (as open page).
  const Served closed = two_reads(PagePolicy::Closed, 10);
  EXPECT_EQ(closed.first, 49);
  EXPECT_EQ(closed.second, 57);
  EXPECT_EQ(closed.after_second.row_hits, 1u);
  EXPECT_EQ(closed.after_second.auto_precharges, 0u);
  EXPECT_EQ(two_reads(PagePolicy::Open, 10).second, 57);
  // The stream ends there: the last column command's auto-precharge is applied by drain().
  EXPECT_EQ(closed.after_drain.auto_precharges, 1u);
}

TEST(DeferredPrecharge, ANextRequestAfterTheColumnCommandFindsTheRowClosed) {
  // The second arrives at 30, after the first RD (23): a queue would not have held it, so RDA
  // precharged at max(RD + tRTP, ACT + tRAS) = max(35, 53) = 53; ACT at 53 + tRP = 75, RD at
  // 75 + tRCD = 97, done 97 + 26 = 123. Open page: a hit, RD at 31, done 57.
  const Served closed = two_reads(PagePolicy::Closed, 30);
  EXPECT_EQ(closed.first, 49);
  EXPECT_EQ(closed.second, 123);
  EXPECT_EQ(closed.after_second.row_hits, 0u);
  EXPECT_EQ(closed.after_second.row_misses, 2u);
  EXPECT_EQ(closed.after_second.auto_precharges, 1u);
  EXPECT_EQ(closed.after_drain.auto_precharges, 2u);
  // The command log marks the first RD as the auto-precharging one (RDA), as the queue path does.
  ASSERT_GE(closed.log.size(), 4u);
  EXPECT_EQ(closed.log[1].cmd, DdrCommand::Rd);
  EXPECT_EQ(closed.log[1].tick, 23);
  EXPECT_TRUE(closed.log[1].auto_precharge);
  EXPECT_EQ(two_reads(PagePolicy::Open, 30).second, 57);
}

TEST(DeferredPrecharge, AnotherRowOfTheBankFindsItPrechargedAsRdaWould) {
  // The second request is to another row of the same bank (row field above the column, channel,
  // rank, bank and bank-group fields: + 2^34 / 65536 rows = 256 KiB), arriving at 10. A queue
  // holding it at the first RD would still auto-precharge (no hit): closed at 53, ACT at 75,
  // RD at 97, done 123; a conflict under open page instead (PRE at 53, ACT 75, RD 97: the same
  // ticks here, as tRAS bounds both).
  DdrConfig cfg = ddr_preset("ddr4-3200");
  cfg.page_policy = PagePolicy::Closed;
  DdrSystem ddr(cfg, "ddr4-3200");
  ddr.set_overlap_row_commands(true);
  const std::uint64_t next_row = ddr.capacity_bytes() / std::uint64_t(cfg.rows);
  EXPECT_EQ(ddr.serve(0, false, 0), 49);
  EXPECT_EQ(ddr.serve(next_row, false, 10), 123);
  EXPECT_EQ(ddr.stats().auto_precharges, 1u);
  EXPECT_EQ(ddr.stats().row_misses, 2u);
  EXPECT_EQ(ddr.stats().cmd_pre, 0u);
}

}  // namespace
}  // namespace npu::hw
