// The TLM target's front end has one request port per channel (DdrSystem::
// set_frontend_per_channel); the trace mode keeps DRAMSim3's one request per clock.
#include <gtest/gtest.h>

#include <vector>

#include "npu/hw_config/ddr_presets.hpp"
#include "npu/hw/ddr/ddr_system.hpp"

using namespace npu::hw;
using npu::hbm2_2stack;

namespace {

/// Accept ticks of 16 reads offered at tick 0, one to each channel of the two-stack HBM2
/// preset (`rorabacochbg`: the channel is address bits 8-11, so address 256 x c is channel c).
std::vector<Tick> accept_ticks(bool per_channel) {
  DdrSystem d(hbm2_2stack());
  d.set_frontend_per_channel(per_channel);
  std::vector<Tick> ticks;
  for (int c = 0; c < 16; ++c) {
    const DdrSystem::Offered o = d.offer(std::uint64_t(c) * 256, false, 0);
    EXPECT_EQ(o.channel, c);
    ticks.push_back(o.accepted_ck);
  }
  return ticks;
}

}  // namespace

TEST(DdrFrontEnd, OnePortPerChannelAcceptsSixteenRequestsInOneClock) {
  // Per channel: each channel's first request is accepted at its ready tick 0.
  EXPECT_EQ(accept_ticks(true), std::vector<Tick>(16, 0));
  // Shared front end: one request per tCK over all channels, ticks 0, 1, ..., 15.
  std::vector<Tick> serial;
  for (Tick t = 0; t < 16; ++t) serial.push_back(t);
  EXPECT_EQ(accept_ticks(false), serial);
}

TEST(DdrFrontEnd, ARequestPortStillTakesOneRequestPerClock) {
  // Two requests to channel 0 at tick 0: the second waits for the next clock.
  DdrSystem d(hbm2_2stack());
  d.set_frontend_per_channel(true);
  EXPECT_EQ(d.offer(0, false, 0).accepted_ck, Tick(0));
  EXPECT_EQ(d.offer(64, false, 0).accepted_ck, Tick(1));  // address 64: channel 0, bank group 1
  EXPECT_EQ(d.offer(256, false, 0).accepted_ck, Tick(0));  // channel 1 is free at tick 0
}
