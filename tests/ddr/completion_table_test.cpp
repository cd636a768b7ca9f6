// CompletionTable against std::unordered_map on a random run of puts and takes (ids taken in
// and out of order, misses, growth past the initial 64 slots and shrinking back).
#include <gtest/gtest.h>

#include <random>
#include <unordered_map>
#include <vector>

#include "npu/hw/ddr/completion_table.hpp"

namespace npu::hw {
namespace {

TEST(CompletionTable, TakeReturnsWhatWasPutOnce) {
  CompletionTable t;
  t.put(7, 100);
  Tick done = 0;
  EXPECT_FALSE(t.take(8, &done));
  EXPECT_TRUE(t.take(7, &done));
  EXPECT_EQ(done, 100);
  EXPECT_FALSE(t.take(7, &done));
  EXPECT_EQ(t.size(), 0u);
}

TEST(CompletionTable, MatchesAnUnorderedMapOnARandomRun) {
  std::mt19937_64 rng(29);
  CompletionTable t;
  std::unordered_map<std::uint64_t, Tick> ref;
  std::vector<std::uint64_t> live;
  std::uint64_t next_id = 1;
  for (int step = 0; step < 300000; ++step) {
    // Phases of growth (mostly puts) and shrinking (mostly takes).
    const bool grow = (step / 20000) % 2 == 0;
    if (rng() % 100 < (grow ? 70u : 30u)) {
      const std::uint64_t id = next_id += 1 + rng() % 3;
      const Tick done = Tick(rng() % 1000000);
      t.put(id, done);
      ref[id] = done;
      live.push_back(id);
    } else if (!live.empty()) {
      const std::size_t k = rng() % 4 == 0 ? std::size_t(rng() % live.size()) : 0;  // oldest or any
      const std::uint64_t id = live[k];
      live.erase(live.begin() + std::ptrdiff_t(k));
      Tick done = -1;
      ASSERT_TRUE(t.take(id, &done)) << "step " << step;
      ASSERT_EQ(done, ref[id]);
      ref.erase(id);
      ASSERT_FALSE(t.take(id, &done));
    }
    ASSERT_EQ(t.size(), ref.size());
  }
}

}  // namespace
}  // namespace npu::hw
