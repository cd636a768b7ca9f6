// BusySlots against its reference, std::set<Tick> with the ticks below the floor erased (what
// ChannelState kept before): the same first free slot for every query of a random run that
// takes ticks near the floor, far ahead of it (past the ring's 2^20-tick limit) and across
// floor jumps larger than the ring.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "npu/hw/ddr/busy_slots.hpp"

namespace npu::hw {
namespace {

Tick reference_first_free(const std::set<Tick>& s, Tick t) {
  for (auto it = s.lower_bound(t); it != s.end() && *it == t; ++it) ++t;
  return t;
}

TEST(BusySlots, EmptyRingIsFreeEverywhere) {
  BusySlots b;
  EXPECT_EQ(b.first_free(0), 0);
  EXPECT_EQ(b.first_free(123456789), 123456789);
}

TEST(BusySlots, SkipsARunOfTakenTicksAcrossWordBoundaries) {
  BusySlots b;
  for (Tick t = 60; t < 200; ++t) b.insert(t);  // 60..199 taken: crosses words 0-3
  EXPECT_EQ(b.first_free(59), 59);
  EXPECT_EQ(b.first_free(60), 200);
  EXPECT_EQ(b.first_free(128), 200);
}

TEST(BusySlots, MatchesAnOrderedSetOnARandomRun) {
  std::mt19937_64 rng(29);
  BusySlots b;
  std::set<Tick> ref;
  Tick floor = 0;
  for (int step = 0; step < 200000; ++step) {
    const int op = int(rng() % 100);
    if (op < 45) {
      Tick t = floor + Tick(rng() % 300);
      if (rng() % 200 == 0) t = floor + Tick(rng() % (Tick(1) << 24));  // far ahead: the overflow
      t = b.first_free(t);
      ASSERT_EQ(t, reference_first_free(ref, t));
      b.insert(t);
      ref.insert(t);
    } else if (op < 90) {
      const Tick t = floor + Tick(rng() % 400);
      ASSERT_EQ(b.first_free(t), reference_first_free(ref, t)) << "step " << step << " tick " << t;
    } else {
      floor += Tick(rng() % 100);
      if (rng() % 1000 == 0) floor += Tick(1) << 22;  // a jump past the whole ring
      b.raise_floor(floor);
      ref.erase(ref.begin(), ref.lower_bound(floor));
    }
  }
}

}  // namespace
}  // namespace npu::hw
