// isa::sequential_stream_gbps on the four presets, each value worked by hand from the config
// with the formula in ddr_stream.hpp (the simulator's own rates: tests/sim/test_sequential_stream.cpp).
#include <gtest/gtest.h>

#include "npu/isa/cost/ddr_stream.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace {

using npu::HwConfig;

HwConfig preset(const std::string& name) {
  return npu::load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/" + name + ".yaml");
}

TEST(SequentialStream, Ddr4WithColumnsLowestStreamsAtTccdL) {
  // rochrababgco: consecutive 64 B bursts in one bank group, tCCD_L = 8 tCK = 5 ns apart:
  // 64 / 5 = 12.8 GB/s, half the 25.6 GB/s peak.
  EXPECT_NEAR(npu::isa::sequential_stream_gbps(preset("edge-npu-ddr4")), 12.8, 1e-9);
}

TEST(SequentialStream, BankGroupsInTheLowestBitsStreamAtThePeak) {
  // The same DDR4 with bank groups below the column (rochrabacobg): tCCD_S = 4 tCK = BL/2, the
  // 25.6 GB/s peak.
  HwConfig hw = preset("edge-npu-ddr4");
  hw.ddr.address_mapping = "rochrabacobg";
  EXPECT_NEAR(npu::isa::sequential_stream_gbps(hw), 25.6, 1e-9);
}

TEST(SequentialStream, RowInterleavedChannelsOverlapByTheDmaWindow) {
  // DDR3-2133, two channels interleaved per 8 KiB row page (rorabgbachco): one channel gives
  // 64 B / (4 x 0.9376 ns) = 17.064 GB/s; a page is 128 bursts and the window 64, so the next
  // page's channel starts while 64 are in flight: min(2, 128 / 64) = 2 channels, 34.128 GB/s
  // (the peak).
  EXPECT_NEAR(npu::isa::sequential_stream_gbps(preset("tpu-v1-like")), 34.128, 1e-3);
  // LPDDR4-3200 x16 channels (BL16: 32 B channel bursts): a 64 B request is two, 2 x 8 tCK =
  // 10 ns, 6.4 GB/s a channel; 2 KiB pages of 32 requests, window 16: min(2, 32 / 16) = 2
  // channels, 12.8 GB/s (the peak).
  EXPECT_NEAR(npu::isa::sequential_stream_gbps(preset("mobile-npu-lpddr4")), 12.8, 1e-9);
  // A window of 32 on the DDR3 preset: the next page's channel starts only with the last 32 of
  // 128 requests in flight, min(2, 128 / (128 - 32)) = 1.33 channels, 22.752 GB/s.
  HwConfig hw = preset("tpu-v1-like");
  hw.dma.max_outstanding = 32;
  EXPECT_NEAR(npu::isa::sequential_stream_gbps(hw), 64.0 / (4 * 2000.0 / 2133) * (128.0 / 96.0), 1e-9);
}

TEST(SequentialStream, Hbm2WithChannelsAndBankGroupsLowestStreamsAtThePeak) {
  // rorabacochbg: bank group then channel below the column, 16 channels x 64 B / (2 x 0.8333 ns)
  // = 614.4 GB/s, the peak.
  EXPECT_NEAR(npu::isa::sequential_stream_gbps(preset("hbm2-npu")), 614.4, 1e-6);
}

}  // namespace
