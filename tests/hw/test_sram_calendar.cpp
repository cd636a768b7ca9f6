// SramCalendar against the std::map calendar SramTiming kept before (its first_gap and reserve
// restated in tests/common/map_calendar.hpp, retirement here): the same gaps on a random run of
// reservations of 1-8 cycles requested out of order, with retirement as time advances; and
// book() (first_gap + reserve in one call, inline at the back) on a second calendar.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <random>

#include "map_calendar.hpp"
#include "npu/hw/sram/sram_calendar.hpp"

namespace npu::hw {
namespace {

using npu::test::map_first_gap;
using npu::test::map_reserve;
using npu::test::MapCalendar;

TEST(SramCalendar, GapsBetweenReservations) {
  SramCalendar c;
  c.reserve(10, 20);
  c.reserve(25, 30);
  EXPECT_EQ(c.first_gap(0, 10), 0u);   // [0, 10) fits before 10
  EXPECT_EQ(c.first_gap(0, 11), 30u);  // neither [0, 11) nor [20, 31) fits
  EXPECT_EQ(c.first_gap(12, 5), 20u);  // [20, 25) fits between
  c.reserve(20, 25);                   // joins both neighbours
  EXPECT_EQ(c.size(), 1u);
  c.retire_before(30);
  EXPECT_EQ(c.size(), 0u);
}

TEST(SramCalendar, MatchesTheMapCalendarOnARandomRun) {
  std::mt19937_64 rng(29);
  SramCalendar c, booked;
  MapCalendar ref;
  std::uint64_t now = 0;
  for (int step = 0; step < 200000; ++step) {
    if (rng() % 50 == 0) {
      now += rng() % 40;
      c.retire_before(now);
      booked.retire_before(now);
      while (!ref.empty() && ref.begin()->second <= now) ref.erase(ref.begin());
      ASSERT_EQ(c.size(), ref.size());
      continue;
    }
    const std::uint64_t from = now + rng() % 200, length = 1 + rng() % 8;
    const std::uint64_t s = c.first_gap(from, length);
    ASSERT_EQ(s, map_first_gap(ref, from, length)) << "step " << step;
    c.reserve(s, s + length);
    map_reserve(ref, s, s + length);
    ASSERT_EQ(c.size(), ref.size());
    ASSERT_EQ(booked.book(from, length), s) << "step " << step;  // book() = first_gap + reserve
    ASSERT_EQ(booked.size(), ref.size());
  }
}

// The DMA's shape: requests mostly at or after the last reservation (the O(1) path at the
// back of the calendar), sometimes inside it or before it (the binary search), reservations
// that touch the back (merged) or leave a gap; checked against the map calendar.
TEST(SramCalendar, MatchesTheMapCalendarOnAnInOrderStream) {
  std::mt19937_64 rng(26);
  SramCalendar c, booked;
  MapCalendar ref;
  std::uint64_t now = 0, tail = 0;
  int back_path = 0;
  for (int step = 0; step < 200000; ++step) {
    if (rng() % 64 == 0) {
      now = std::max(now, tail - std::min<std::uint64_t>(tail, rng() % 16));
      c.retire_before(now);
      booked.retire_before(now);
      while (!ref.empty() && ref.begin()->second <= now) ref.erase(ref.begin());
      ASSERT_EQ(c.size(), ref.size());
      continue;
    }
    const std::uint64_t back_start = ref.empty() ? 0 : std::prev(ref.end())->first;
    const std::uint64_t from = std::max(now, tail + rng() % 4 - std::min<std::uint64_t>(tail, rng() % 6));
    if (from >= back_start) ++back_path;
    const std::uint64_t length = 1 + rng() % 3;
    const std::uint64_t s = c.first_gap(from, length);
    ASSERT_EQ(s, map_first_gap(ref, from, length)) << "step " << step;
    c.reserve(s, s + length);
    map_reserve(ref, s, s + length);
    ASSERT_EQ(c.size(), ref.size());
    ASSERT_EQ(booked.book(from, length), s) << "step " << step;  // book() = first_gap + reserve
    ASSERT_EQ(booked.size(), ref.size());
    tail = std::max(tail, s + length);
  }
  EXPECT_GT(back_path, 100000);  // most requests took the back-of-calendar path
  EXPECT_LT(back_path, 199000);  // and some the search
}

}  // namespace
}  // namespace npu::hw
