// DdrSystem::serve (one request offered and run to completion; on an idle channel its PRE, ACT
// and column command skip the queue while no refresh falls due, and the queue takes over from
// that state when one does: ChannelController::try_serve_alone, lone_request.cpp) against
// complete(offer(..., track = true)), the queue path it stands for, in two systems fed the same
// requests. (A deliberate tick added to the lone ACT, or the PRE/ACT flags dropped at the hand-over
// to the queue, fails this test.) The golden digests
// (command_trace_golden_test.cpp) check serve() with a command log attached, which turns off the
// idle-refresh skip; this test runs as DdrModule does, without a log, with split cursors, open
// and closed pages, dense and sparse arrivals (refreshes between requests) and 1 or 2 ranks,
// and compares every done tick and every statistic.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "npu/hw/ddr/ddr_system.hpp"
#include "npu/hw/ddr/ddr_trace_file.hpp"
#include "npu/hw_config/ddr_presets.hpp"

namespace npu::hw {
namespace {

void expect_same_stats(const DdrStats& a, const DdrStats& b) {
  EXPECT_EQ(a.reads, b.reads);
  EXPECT_EQ(a.writes, b.writes);
  EXPECT_EQ(a.row_hits, b.row_hits);
  EXPECT_EQ(a.row_misses, b.row_misses);
  EXPECT_EQ(a.row_conflicts, b.row_conflicts);
  EXPECT_EQ(a.cmd_act, b.cmd_act);
  EXPECT_EQ(a.cmd_pre, b.cmd_pre);
  EXPECT_EQ(a.cmd_rd, b.cmd_rd);
  EXPECT_EQ(a.cmd_wr, b.cmd_wr);
  EXPECT_EQ(a.cmd_ref, b.cmd_ref);
  EXPECT_EQ(a.auto_precharges, b.auto_precharges);
  EXPECT_EQ(a.first_arrival_ck, b.first_arrival_ck);
  EXPECT_EQ(a.last_done_ck, b.last_done_ck);
  EXPECT_EQ(a.read_latency_sum_ck, b.read_latency_sum_ck);
  EXPECT_EQ(a.write_latency_sum_ck, b.write_latency_sum_ck);
  EXPECT_EQ(a.read_latency_histogram, b.read_latency_histogram);
}

TEST(DdrServe, EqualsOfferThenCompleteWithoutALogOnEveryPageRankAndArrivalMix) {
  int cases = 0;
  for (const char* preset : {"ddr4-3200", "hbm2"})
    for (const char* pattern : {"seq-read", "seq-write", "mixed", "random-read"})
      for (bool closed : {false, true})
        for (int ranks : {1, 2})
          for (int stretch : {1, 7, 300}) {
            SCOPED_TRACE(std::string(preset) + " " + pattern + (closed ? " closed" : " open") + " ranks " +
                         std::to_string(ranks) + " stamps x" + std::to_string(stretch));
            DdrConfig cfg = ddr_preset(preset);
            if (closed) cfg.page_policy = PagePolicy::Closed;
            cfg.ranks = ranks;
            DdrSystem fast(cfg, preset), queued(cfg, preset);
            for (DdrSystem* d : {&fast, &queued}) {
              d->set_overlap_row_commands(true);
              d->set_frontend_per_channel(true);
            }
            TraceGenerator gen(parse_trace_pattern(pattern));
            const std::uint64_t cap = fast.capacity_bytes();
            for (int i = 0; i < 3000; ++i) {
              TraceRequest r = gen.next();
              r.cycle *= Tick(stretch);
              const Tick a = fast.serve(r.addr % cap, r.is_write, r.cycle);
              const Tick b = queued.complete(queued.offer(r.addr % cap, r.is_write, r.cycle, nullptr, nullptr, true));
              ASSERT_EQ(a, b) << "request " << i;
            }
            expect_same_stats(fast.stats(), queued.stats());
            ++cases;
          }
  EXPECT_EQ(cases, 2 * 4 * 2 * 2 * 3);
}

}  // namespace
}  // namespace npu::hw
