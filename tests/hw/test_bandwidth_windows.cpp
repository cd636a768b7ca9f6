#include <gtest/gtest.h>

#include "npu/hw/dma/bandwidth_windows.hpp"

TEST(BandwidthWindows, BytesLandInTheWindowTheyCompleteIn) {
  // 1 us windows. 64 B done at 0.5 us and 128 B at 1.0 us (the start of window 1).
  npu::hw::BandwidthWindows w(1000000);
  w.add(500000, 64);
  w.add(1000000, 128);
  ASSERT_EQ(w.windows(), 2u);
  // 64 B / 1 us = 64e6 B/s = 0.064 GB/s; 128 B / 1 us = 0.128 GB/s.
  EXPECT_DOUBLE_EQ(w.gbps(0), 0.064);
  EXPECT_DOUBLE_EQ(w.gbps(1), 0.128);
  EXPECT_DOUBLE_EQ(w.gbps(7), 0.0);  // no traffic recorded there
}

TEST(BandwidthWindows, FullDdr4BurstRateReadsAsPeak) {
  // DDR4-3200 x64 peak: one 64 B burst every 4 tCK = 2.5 ns -> 400 bursts per us = 25.6 GB/s.
  npu::hw::BandwidthWindows w(1000000);
  for (int i = 0; i < 400; ++i) w.add(std::uint64_t(i) * 2500, 64);
  EXPECT_DOUBLE_EQ(w.gbps(0), 25.6);
}
