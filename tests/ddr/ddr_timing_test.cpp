// Timing of the DDR core on the DDR4-3200 preset, one request at a time or in small,
// hand-derived sequences. Preset values (tCK): CL 22, CWL 16, tRCD 22, tRP 22, tRAS 52,
// tRC 74, tCCD_S/L 4/8, tRRD_S/L 4/8, tFAW 34, tWR 24, tWTR_S/L 4/12, tRTP 12,
// tRFC 560, tREFI 12480, BL8 (BL/2 = 4 tCK on the bus). A request accepted at tick a
// issues its first command at a + 1 at the earliest (one controller clock).
#include <gtest/gtest.h>

#include "ddr_test_util.hpp"
#include "npu/hw_config/ddr_presets.hpp"

namespace npu::hw {
namespace {

using test::addr_of;
using test::serve;
using test::ticks_of;

TEST(DdrTiming, ClosedFormUnloadedLatencies) {
  const DdrConfig c = ddr4_3200();
  // hit: CL 22 + BL/2 4 + 1 = 27; closed: tRCD 22 + 27 = 49; conflict: tRP 22 + 49 = 71.
  EXPECT_EQ(unloaded_read_latency_ck(c, RowState::Hit), 27);
  EXPECT_EQ(unloaded_read_latency_ck(c, RowState::Closed), 49);
  EXPECT_EQ(unloaded_read_latency_ck(c, RowState::Conflict), 71);
}

TEST(DdrTiming, SimulatedClosedHitAndConflictLatencies) {
  DdrSystem d(ddr4_3200());
  // Closed bank at tick 0: ACT at 1, RD at 1 + tRCD = 23, data done 23 + CL + BL/2 = 49.
  EXPECT_EQ(serve(d, addr_of(d, 0, 0, 0, 0, 0), false, 0), 49);
  // Same row at tick 100 (tRAS, tRTP long met): RD at 101, done 101 + 26 = 127 -> 27.
  EXPECT_EQ(serve(d, addr_of(d, 0, 0, 0, 0, 8), false, 100), 27);
  // Other row at 200: PRE 201, ACT 201 + tRP = 223, RD 223 + tRCD = 245, done 271 -> 71.
  EXPECT_EQ(serve(d, addr_of(d, 0, 0, 0, 1, 0), false, 200), 71);
  EXPECT_EQ(d.stats().row_misses, 1u);
  EXPECT_EQ(d.stats().row_hits, 1u);
  EXPECT_EQ(d.stats().row_conflicts, 1u);
}

TEST(DdrTiming, UnloadedWriteCompletesAfterCwlAndBurst) {
  DdrSystem d(ddr4_3200());
  // Closed bank: ACT 1, WR 23, data written 23 + CWL 16 + BL/2 4 = 43.
  EXPECT_EQ(serve(d, addr_of(d, 0, 0, 0, 0, 0), true, 0), 43);
}

TEST(DdrTiming, ConflictWaitsForTrasAfterActivate) {
  DdrSystem d(ddr4_3200());
  // Read at 0 opens row 0 (ACT 1, RD 23). A conflict offered at 1 cannot precharge
  // before ACT + tRAS = 53: PRE 53, ACT 75, RD 97, done 123 -> latency 123 - 1 = 122.
  auto a = d.offer(addr_of(d, 0, 0, 0, 0, 0), false, 0, nullptr, nullptr, true);
  auto b = d.offer(addr_of(d, 0, 0, 0, 1, 0), false, 0, nullptr, nullptr, true);
  EXPECT_EQ(b.accepted_ck, 1);  // one request per clock at the front end
  EXPECT_EQ(d.complete(a), 49);
  EXPECT_EQ(d.complete(b), 123);
}

TEST(DdrTiming, ColumnCommandsSpacedByTccdLInOneGroupAndTccdSAcross) {
  DdrSystem d(ddr4_3200());
  std::vector<DdrCommandRecord> log;
  // Open row 0 in bank groups 0 and 1 of rank 0.
  serve(d, addr_of(d, 0, 0, 0, 0, 0), false, 0);
  serve(d, addr_of(d, 0, 1, 0, 0, 0), false, 100);
  d.set_command_log(&log);
  // Two hits in bank group 0 offered at 300 and 301: RD at 301, then 301 + tCCD_L 8 = 309.
  auto a = d.offer(addr_of(d, 0, 0, 0, 0, 16), false, 300, nullptr, nullptr, true);
  auto b = d.offer(addr_of(d, 0, 0, 0, 0, 24), false, 300, nullptr, nullptr, true);
  d.complete(a);
  d.complete(b);
  // Two hits in groups 0 and 1 offered at 400 and 401: RD at 401, then 401 + tCCD_S 4 = 405.
  auto c = d.offer(addr_of(d, 0, 0, 0, 0, 32), false, 400, nullptr, nullptr, true);
  auto e = d.offer(addr_of(d, 0, 1, 0, 0, 32), false, 400, nullptr, nullptr, true);
  d.complete(c);
  d.complete(e);
  EXPECT_EQ(ticks_of(log, DdrCommand::Rd), (std::vector<Tick>{301, 309, 401, 405}));
}

TEST(DdrTiming, FifthActivateWaitsForTheFourActivateWindow) {
  // Five reads to closed banks of rank 0, offered at ticks 0..4:
  //   (bg0,b0) (bg1,b0) (bg2,b0) (bg3,b0) (bg0,b1).
  // ACTs 1, 5, 9, 13 (tRRD_S 4 apart). The fifth may not issue before ACT1 + tFAW =
  // 1 + 34 = 35 (tRRD_S alone would allow 17, tRRD_L from ACT1 9). At 35 the command bus
  // carries RD4 (ACT4 13 + tRCD 22 = 35; column commands win ties), so ACT5 goes at 36.
  auto run = [](int t_faw) {
    DdrConfig c = ddr4_3200();
    c.timing.t_faw = t_faw;
    DdrSystem d(c);
    std::vector<DdrCommandRecord> log;
    d.set_command_log(&log);
    const int bg[5] = {0, 1, 2, 3, 0}, bank[5] = {0, 0, 0, 0, 1};
    for (int i = 0; i < 5; ++i) d.offer(addr_of(d, 0, bg[i], bank[i], 0, 0), false, i);
    d.drain();
    return ticks_of(log, DdrCommand::Act);
  };
  EXPECT_EQ(run(34), (std::vector<Tick>{1, 5, 9, 13, 36}));
  // Control: with tFAW = 16 the window ends at 1 + 16 = 17 = ACT4 + tRRD_S, so the fifth
  // ACT goes at 17: the delay above is the window's.
  EXPECT_EQ(run(16), (std::vector<Tick>{1, 5, 9, 13, 17}));
}

TEST(DdrTiming, RefreshBlocksTheRankForTrfc) {
  // Two ranks: rank 0's first refresh is due at tREFI * 1/2 = 6240, rank 1's at 12480.
  DdrSystem d(ddr4_3200());
  std::vector<DdrCommandRecord> log;
  d.set_command_log(&log);
  // Open a row in rank 0 at 6000: ACT 6001, RD 6023, done 6049.
  EXPECT_EQ(serve(d, addr_of(d, 0, 0, 0, 0, 0), false, 6000), 49);
  // A hit to that row offered at 6240 becomes eligible at 6241 >= the refresh due time,
  // so the rank refreshes first: PRE at 6240 (tRAS from 6001 and tRTP from 6023 met),
  // REF at 6240 + tRP 22 = 6262, then the bank may open at 6262 + tRFC 560 = 6822:
  // ACT 6822, RD 6844, done 6844 + 26 = 6870 -> latency 6870 - 6240 = 630.
  EXPECT_EQ(serve(d, addr_of(d, 0, 0, 0, 0, 8), false, 6240), 630);
  EXPECT_EQ(ticks_of(log, DdrCommand::Ref), (std::vector<Tick>{6262}));
  EXPECT_EQ(d.stats().cmd_ref, 1u);
}

TEST(DdrTiming, IdleGapFastForwardMatchesOneByOneRefresh) {
  // Two systems see the same requests; `slow` has a command log attached, which turns the
  // idle fast-forward off, so it simulates every REF one by one. Both must agree exactly.
  DdrSystem fast(ddr4_3200()), slow(ddr4_3200());
  std::vector<DdrCommandRecord> log;
  slow.set_command_log(&log);
  // T = 100 tREFI + 3000 = 1251000. REFs due by T: rank 0 at 6240 + 12480 k for
  // k = 0..99 (6240 + 99 x 12480 = 1241760 <= T), rank 1 at 12480 (k + 1) for k = 0..99
  // (1248000 <= T): 200. The next ones (1254240, 1260480) are past the requests below.
  const Tick t = 100 * 12480 + 3000;
  for (DdrSystem* d : {&fast, &slow}) {
    // Rank 0's row 0 is opened at 0; the first refresh closes it (PRE 6240, REF 6262).
    EXPECT_EQ(serve(*d, addr_of(*d, 0, 0, 0, 0, 0), false, 0), 49);
    // Rank 0's last REF is at 1241760, so its banks may open again from 1241760 + tRFC
    // 560 = 1242320 < T: the read finds a closed bank, latency tRCD + CL + BL/2 + 1 = 49.
    EXPECT_EQ(serve(*d, addr_of(*d, 0, 0, 0, 0, 8), false, t), 49);
    EXPECT_EQ(serve(*d, addr_of(*d, 1, 0, 0, 0, 0), false, t + 100), 49);
    d->drain();
  }
  EXPECT_EQ(fast.stats().cmd_ref, 200u);
  EXPECT_EQ(slow.stats().cmd_ref, 200u);
  EXPECT_EQ(ticks_of(log, DdrCommand::Ref).size(), 200u);
  EXPECT_EQ(fast.stats().cmd_pre, slow.stats().cmd_pre);
  EXPECT_EQ(fast.stats().cmd_act, slow.stats().cmd_act);
  EXPECT_EQ(fast.stats().last_done_ck, slow.stats().last_done_ck);
}

TEST(DdrTiming, TeraCycleIdleGapIsFastForwarded) {
  // One read at 0 and one at 10^12 tCK (10.4 minutes of DDR4-3200 idle time). Without the
  // fast-forward this takes ~9 s of CPU; with it, microseconds. REF counts by hand:
  // rank 0 is due at 6240 + 12480 k <= 10^12 for k = 0..80128204 (80128205 REFs), rank 1
  // at 12480 (k + 1) <= 10^12 for k = 0..80128204 (floor(10^12 / 12480) = 80128205):
  // 160256410 in all. The next dues (10^12 + 4640, 10^12 + 10880) come after the read.
  DdrSystem d(ddr4_3200());
  EXPECT_EQ(serve(d, addr_of(d, 0, 0, 0, 0, 0), false, 0), 49);
  // Rank 0's last REF at 6240 + 80128204 x 12480 = 999999992160 ends its tRFC long
  // before 10^12: the bank is closed and ready, latency 49.
  EXPECT_EQ(serve(d, addr_of(d, 0, 0, 0, 0, 8), false, 1000000000000), 49);
  EXPECT_EQ(d.stats().cmd_ref, 160256410u);
}

TEST(DdrTiming, RefreshOfOneRankDoesNotBlockTheOther) {
  DdrSystem d(ddr4_3200());
  // Rank 0 refreshes at 6240 (all banks closed: REF at 6240). A read to rank 1 offered at
  // 6240 is eligible at 6241: ACT 6241, RD 6263, done 6289 -> the closed-bank 49.
  EXPECT_EQ(serve(d, addr_of(d, 1, 0, 0, 0, 0), false, 6240), 49);
}

TEST(DdrTiming, WriteToReadTurnaroundRespectsTwtr) {
  DdrSystem d(ddr4_3200());
  std::vector<DdrCommandRecord> log;
  serve(d, addr_of(d, 0, 0, 0, 0, 0), false, 0);    // open row 0 in bg0
  serve(d, addr_of(d, 0, 1, 0, 0, 0), false, 100);  // open row 0 in bg1
  d.set_command_log(&log);
  // Write hit in bg0 at 200 -> WR at 201. Read hit in bg0 at 201: RD >= 201 + CWL 16 +
  // BL/2 4 + tWTR_L 12 = 233, done 233 + 26 = 259.
  d.offer(addr_of(d, 0, 0, 0, 0, 8), true, 200);
  auto r1 = d.offer(addr_of(d, 0, 0, 0, 0, 16), false, 201, nullptr, nullptr, true);
  EXPECT_EQ(d.complete(r1), 259);
  // Write hit in bg0 at 400 -> WR at 401. Read hit in bg1 at 401: RD >= 401 + 16 + 4 +
  // tWTR_S 4 = 425.
  d.offer(addr_of(d, 0, 0, 0, 0, 24), true, 400);
  auto r2 = d.offer(addr_of(d, 0, 1, 0, 0, 8), false, 401, nullptr, nullptr, true);
  d.complete(r2);
  EXPECT_EQ(ticks_of(log, DdrCommand::Wr), (std::vector<Tick>{201, 401}));
  EXPECT_EQ(ticks_of(log, DdrCommand::Rd), (std::vector<Tick>{233, 425}));
}

TEST(DdrTiming, RankSwitchAddsTrtrsOnTheDataBus) {
  DdrSystem d(ddr4_3200());
  std::vector<DdrCommandRecord> log;
  serve(d, addr_of(d, 0, 0, 0, 0, 0), false, 0);    // open rank 0
  serve(d, addr_of(d, 1, 0, 0, 0, 0), false, 100);  // open rank 1
  d.set_command_log(&log);
  // Hits in rank 0 then rank 1 offered at 300, 301: RD 301 (data 323..327); rank 1's
  // data may start at 327 + tRTRS 2 = 329, so its RD goes at 329 - CL 22 = 307.
  d.offer(addr_of(d, 0, 0, 0, 0, 8), false, 300);
  d.offer(addr_of(d, 1, 0, 0, 0, 8), false, 300);
  d.drain();
  EXPECT_EQ(ticks_of(log, DdrCommand::Rd), (std::vector<Tick>{301, 307}));
}

TEST(DdrTiming, ClosedPagePolicyPrechargesAfterTheAccess) {
  DdrConfig c = ddr4_3200();
  c.page_policy = PagePolicy::Closed;
  DdrSystem d(c);
  EXPECT_EQ(serve(d, addr_of(d, 0, 0, 0, 0, 0), false, 0), 49);
  // The row was auto-precharged, so the same row is a closed-bank access again: 49.
  EXPECT_EQ(serve(d, addr_of(d, 0, 0, 0, 0, 8), false, 200), 49);
  EXPECT_EQ(d.stats().auto_precharges, 2u);
  EXPECT_EQ(d.stats().row_hits, 0u);
}

TEST(DdrTiming, FrontEndStallsWhileTheQueueIsFull) {
  // queue_depth 4, ten reads ready at tick 0 in one row of bank (bg0, b0). The front end
  // takes one per clock: 0, 1, 2, 3. ACT at 1, RD_k at 23 + 8k (tCCD_L). Request 4
  // finds the queue full and is accepted when RD_0 frees a slot at 23; request 5 at
  // RD_1 = 31, and so on: 39, 47, 55, 63.
  DdrConfig c = ddr4_3200();
  c.queue_depth = 4;
  DdrSystem d(c);
  std::vector<Tick> accepted;
  for (int i = 0; i < 10; ++i) accepted.push_back(d.offer(addr_of(d, 0, 0, 0, 0, 8 * i), false, 0).accepted_ck);
  d.drain();
  EXPECT_EQ(accepted, (std::vector<Tick>{0, 1, 2, 3, 23, 31, 39, 47, 55, 63}));
  // Last RD at 23 + 8 x 9 = 95, done 95 + 26 = 121.
  EXPECT_EQ(d.stats().last_done_ck, 121);
}

TEST(DdrTiming, FrFcfsKeepsTheRowOpenForQueuedHitsBeforeAnOlderConflict) {
  DdrSystem d(ddr4_3200());
  std::vector<DdrCommandRecord> log;
  d.set_command_log(&log);
  // Row 0 of (bg0, b0) opens for a read at 0: ACT 1, RD 23.
  auto first = d.offer(addr_of(d, 0, 0, 0, 0, 0), false, 0, nullptr, nullptr, true);
  EXPECT_EQ(d.complete(first), 49);
  // A conflict (row 1) accepted at 30, then six hits to row 0 accepted at 31..36.
  // Hits: RD at 32 (eligible 31 + 1; tCCD_L after RD 23 allows 31), then every
  // tCCD_L: 40, 48, 56, 64, 72. The conflict's PRE could go at ACT + tRAS = 53, but the
  // open row still has queued hits, so it waits for the last: PRE at 72 + tRTP 12 = 84,
  // ACT 84 + tRP 22 = 106, RD 106 + tRCD 22 = 128, done 128 + 26 = 154.
  auto conflict = d.offer(addr_of(d, 0, 0, 0, 1, 0), false, 30, nullptr, nullptr, true);
  for (int i = 1; i <= 6; ++i) d.offer(addr_of(d, 0, 0, 0, 0, 8 * i), false, 30);
  EXPECT_EQ(d.complete(conflict), 154);
  EXPECT_EQ(ticks_of(log, DdrCommand::Rd), (std::vector<Tick>{23, 32, 40, 48, 56, 64, 72, 128}));
  EXPECT_EQ(ticks_of(log, DdrCommand::Pre), (std::vector<Tick>{84}));
  EXPECT_EQ(d.stats().row_hits, 6u);
  EXPECT_EQ(d.stats().row_conflicts, 1u);
}

TEST(DdrTiming, OverlappedRowCommandsLetALaterRequestPrepareItsBankEarly) {
  // Transaction-at-a-time use (the TLM target). Rows 0 are open in bg0 and bg1
  // (reads at 0 and 50). At 200, request A conflicts in bg0: PRE 201, ACT 223, RD 245,
  // done 271. It is completed before request B (a conflict in bg1, accepted at 201) is
  // seen, as b_transport does.
  //  - One cursor: B's PRE must follow A's RD: PRE 246, ACT 268, RD 290, done 316.
  //  - Split cursors: B's PRE takes the free slot 202, ACT at max(202 + tRP 22,
  //    ACT_A 223 + tRRD_S 4) = 227, RD at max(227 + tRCD 22, RD_A 245 + tCCD_S 4) = 249,
  //    done 249 + 26 = 275.
  auto run = [](bool overlap) {
    DdrSystem d(ddr4_3200());
    d.set_overlap_row_commands(overlap);
    serve(d, addr_of(d, 0, 0, 0, 0, 0), false, 0);
    serve(d, addr_of(d, 0, 1, 0, 0, 0), false, 50);
    auto a = d.offer(addr_of(d, 0, 0, 0, 1, 0), false, 200, nullptr, nullptr, true);
    EXPECT_EQ(d.complete(a), 271);
    auto b = d.offer(addr_of(d, 0, 1, 0, 1, 0), false, 200, nullptr, nullptr, true);
    return d.complete(b);
  };
  EXPECT_EQ(run(false), 316);
  EXPECT_EQ(run(true), 275);
}

}  // namespace
}  // namespace npu::hw
