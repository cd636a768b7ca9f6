// DdrStats' read-latency histogram (ddr_stats.hpp): one bucket per tCK up to the cap of 2^22 tCK,
// latencies at or over the cap in the cap's bucket (counted exactly in the mean), the
// nearest-rank percentile over the buckets. The cap holds after the histogram has grown past it.
#include <gtest/gtest.h>

#include "npu/hw/ddr/ddr_stats.hpp"

namespace npu::hw {
namespace {

TEST(DdrStatsHistogram, EachLatencyInItsOwnBucketAndTheNearestRankPercentile) {
  DdrStats s;
  for (Tick l : {20, 20, 21, 40}) {
    s.add_read_latency(l);
    ++s.reads;
  }
  ASSERT_GE(s.read_latency_histogram.size(), 41u);
  EXPECT_EQ(s.read_latency_histogram[20], 2u);
  EXPECT_EQ(s.read_latency_histogram[21], 1u);
  EXPECT_EQ(s.read_latency_histogram[40], 1u);
  EXPECT_EQ(s.read_latency_sum_ck, 101u);  // 20 + 20 + 21 + 40
  // Nearest rank of 4 latencies: p50 is the ceil(2)nd = 20, p75 the 3rd = 21, p100 the 4th = 40.
  EXPECT_EQ(s.read_latency_percentile_ck(50), 20);
  EXPECT_EQ(s.read_latency_percentile_ck(75), 21);
  EXPECT_EQ(s.read_latency_percentile_ck(100), 40);
}

TEST(DdrStatsHistogram, LatenciesOverTheCapShareItsBucketAfterTheHistogramGrewPastIt) {
  constexpr Tick cap = Tick(1) << 22;
  DdrStats s;
  s.add_read_latency(cap - 1);  // grows the histogram to 2^22 buckets
  s.add_read_latency(cap + 7);  // the cap's bucket: grows it past the cap (doubling to 2^23)
  ASSERT_GT(s.read_latency_histogram.size(), std::size_t(cap) + 100);
  s.add_read_latency(cap + 100);  // a bucket exists at cap + 100, but the latency is over the cap
  s.reads = 3;
  EXPECT_EQ(s.read_latency_histogram[std::size_t(cap) - 1], 1u);
  EXPECT_EQ(s.read_latency_histogram[std::size_t(cap)], 2u);
  EXPECT_EQ(s.read_latency_histogram[std::size_t(cap) + 100], 0u);
  EXPECT_EQ(s.read_latency_sum_ck, std::uint64_t(3 * cap + 106));  // the mean stays exact
  EXPECT_EQ(s.read_latency_percentile_ck(100), cap);
}

}  // namespace
}  // namespace npu::hw
