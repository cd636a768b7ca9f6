// isa::dma_stream_model and dma_descriptor_ns on the four presets, each figure worked by hand
// from the config with the formulas in dma_time.hpp (the simulator's own times:
// tests/sim/test_dma_time_estimate.cpp).
#include <gtest/gtest.h>

#include "npu/hw_config/hw_config.hpp"
#include "npu/isa/cost/dma_time.hpp"

namespace {

using npu::HwConfig;

HwConfig dma_time_preset(const std::string& name) {
  return npu::load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/" + name + ".yaml");
}

TEST(DmaTime, EdgeStreamsAtTccdLWithRefresh) {
  // DDR4-3200, one channel, tCK 0.625 ns, core 1 GHz, SRAM 32 B/cycle, latency 2.
  // first burst: (tRCD 22 + CL 22 + 1 + BL/2 4) x 0.625 + (2 + 64/32 + 1) x 1 = 30.625 + 5 ns.
  // One channel: no page switches; the stream is tCCD_L-bound: 64 B / (8 x 0.625 ns) = 12.8 GB/s.
  // Little's law: 32 x 64 B / ((22 + 22 + 22 + 1 + 4) x 0.625 + 5 = 49.375 ns) = 41.5, not binding.
  // Refresh: 1 / (1 - (tRP 22 + tRFC 560) / tREFI 12480) = 12480 / 11898.
  const auto m = npu::isa::dma_stream_model(dma_time_preset("edge-npu-ddr4"));
  EXPECT_NEAR(m.first_burst_ns, 35.625, 1e-9);
  EXPECT_NEAR(m.first_page_gbps, 12.8, 1e-9);
  EXPECT_NEAR(m.sustained_gbps, 12.8, 1e-9);
  EXPECT_EQ(m.first_page_bytes, 0.0);
  EXPECT_NEAR(m.refresh_factor, 12480.0 / 11898.0, 1e-12);
  // 256 KiB: 35.625 + 12480/11898 x 262144 / 12.8 = 35.625 + 21481.80 ns.
  EXPECT_NEAR(npu::isa::dma_descriptor_ns(m, 262144), 35.625 + 12480.0 / 11898.0 * 20480.0, 1e-6);
  EXPECT_EQ(npu::isa::dma_descriptor_ns(m, 0), 0.0);
  // Four descriptors of 1 KiB: each pays the first burst: 4 x (35.625 + 1.0489 x 80 ns).
  EXPECT_NEAR(npu::isa::dma_transfers_ns(m, 4096, 4), 4 * (35.625 + 12480.0 / 11898.0 * 80.0), 1e-6);
  // LOAD and STORE together: one first burst, both streams: 35.625 + 2 x 1.0489 x 20480.
  EXPECT_NEAR(npu::isa::dma_load_store_ns(m, 262144, 262144), 35.625 + 2 * 12480.0 / 11898.0 * 20480.0, 1e-6);
}

TEST(DmaTime, MobileSwitchesChannelPerRowPage) {
  // LPDDR4-3200 x16 channels x 2 (rorabgbachco: a 2 KiB page of one channel, then the other),
  // core 800 MHz (1.25 ns), SRAM 16 B/cycle, latency 2; a 64 B request = 2 channel bursts of
  // BL/2 = 8 tCK: t = 16 x 0.625 = 10 ns.
  // first burst: (tRCD 29 + CL 28 + 1 + 16) x 0.625 + (2 + 4 + 1) x 1.25 = 46.25 + 8.75 = 55 ns.
  // A page: n = 2048 / 64 = 32 requests, window W = 16: period = max(46.25 + 16 x 10, 32 x 10 / 2)
  // = 206.25 ns -> 2048 / 206.25 GB/s; the first page at one channel's 64 / 10 = 6.4 GB/s.
  // Little's law: 16 x 64 / (55 + 29 x 0.625) = 14.0 GB/s, not binding.
  // Refresh: 1 / (1 - (29 + 288) / 6246) = 6246 / 5929.
  const auto m = npu::isa::dma_stream_model(dma_time_preset("mobile-npu-lpddr4"));
  EXPECT_NEAR(m.first_burst_ns, 55.0, 1e-9);
  EXPECT_NEAR(m.first_page_gbps, 6.4, 1e-9);
  EXPECT_NEAR(m.first_page_bytes, 2048.0, 1e-9);
  EXPECT_NEAR(m.sustained_gbps, 2048.0 / 206.25, 1e-9);
  EXPECT_NEAR(m.refresh_factor, 6246.0 / 5929.0, 1e-12);
  // 256 KiB: 55 + 6246/5929 x (2048 / 6.4 + 260096 / (2048 / 206.25)).
  EXPECT_NEAR(npu::isa::dma_descriptor_ns(m, 262144), 55 + 6246.0 / 5929.0 * (320.0 + 260096.0 * 206.25 / 2048.0),
              1e-6);
}

TEST(DmaTime, TpuPagesAlternateChannelsWithAWideWindow) {
  // DDR3-2133 (tCK 2000/2133 ns) x 2 channels, 8 KiB pages, W = 64, core 700 MHz, SRAM 64 B/cycle.
  // t = max(tCCD 4, BL/2 4) tCK per request; first burst (14 + 14 + 1 + 4) tCK + (2 + 1 + 1) / 0.7 ns;
  // period = max(33 tCK + 64 t, 128 t / 2) = 33 tCK + 64 t -> 8192 B / period.
  const double tck = 2000.0 / 2133;
  const auto m = npu::isa::dma_stream_model(dma_time_preset("tpu-v1-like"));
  EXPECT_NEAR(m.first_burst_ns, 33 * tck + 4 / 0.7, 1e-9);
  EXPECT_NEAR(m.first_page_gbps, 64 / (4 * tck), 1e-9);
  EXPECT_NEAR(m.first_page_bytes, 8192.0, 1e-9);
  EXPECT_NEAR(m.sustained_gbps, 8192 / (33 * tck + 64 * 4 * tck), 1e-9);
  EXPECT_NEAR(m.refresh_factor, 8315.0 / (8315 - 14 - 278), 1e-12);
}

TEST(DmaTime, Hbm2InterleavesChannelsAndReachesThePeak) {
  // rorabacochbg: ch and bg below co, every channel from the first burst: the peak 614.4 GB/s.
  // Little's law with the derived window (dma_sizing: ceil(38.4 GB/s x 49 ns / 64) = 30):
  // 16 x 30 x 64 / ((17 + 17 + 17 + 1 + 2) x 2000/2400 + 4 = 49 ns) = 626.9 GB/s, not binding.
  // first burst: (17 + 17 + 1 + 2) x 0.8333 + (2 + 1 + 1) x 1 ns; refresh 4680 / (4680 - 17 - 312).
  const auto m = npu::isa::dma_stream_model(dma_time_preset("hbm2-npu"));
  EXPECT_NEAR(m.first_burst_ns, 37 * 2000.0 / 2400 + 4, 1e-9);
  EXPECT_NEAR(m.sustained_gbps, 614.4, 1e-9);
  EXPECT_EQ(m.first_page_bytes, 0.0);
  EXPECT_NEAR(m.refresh_factor, 4680.0 / 4351.0, 1e-12);
}

TEST(DmaTime, FixedMemoryUsesItsBandwidthAndLatency) {
  HwConfig hw = dma_time_preset("edge-npu-ddr4");
  hw.memory.model = npu::MemoryModel::Fixed;
  hw.memory.latency_ns = 100;
  hw.memory.bandwidth_gbps = 16;
  // first burst 100 + SRAM 5 ns; window 32 x 64 B / 105 ns = 19.5 GB/s > 16: the bandwidth.
  const auto m = npu::isa::dma_stream_model(hw);
  EXPECT_NEAR(m.first_burst_ns, 105.0, 1e-9);
  EXPECT_NEAR(m.sustained_gbps, 16.0, 1e-9);
  EXPECT_EQ(m.refresh_factor, 1.0);
  EXPECT_NEAR(npu::isa::dma_descriptor_ns(m, 1600), 105.0 + 100.0, 1e-9);
}

}  // namespace
