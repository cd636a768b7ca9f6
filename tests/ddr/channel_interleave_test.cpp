// Channel interleaving of the address mapping (docs/config.md "Channel interleaving") and
// `npu config check`'s warning when sequential streams cannot use every channel.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "npu/hw/ddr/channel_interleave.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "tool_runner.hpp"

namespace {

npu::DdrConfig edge_ddr() { return npu::load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml").ddr; }

TEST(ChannelInterleave, ChannelAboveTheBanksIsReportedWithAFix) {
  npu::DdrConfig d = edge_ddr();  // DDR4-3200 x64: 64 B bursts, 1024 columns, 4 BG x 4 banks, 2 ranks
  d.channels = 2;
  // rochrababgco, LSB up: offset 6 bits (64 B), co 7 (1024 / BL8 = 128 bursts), bg 2, ba 2,
  // ra 1 -> ch is bit 6 + 7 + 2 + 2 + 1 = 18: 2^18 = 256 KiB per channel before the next.
  EXPECT_EQ(npu::hw::channel_interleave_bytes(d), 256u * 1024);
  EXPECT_EQ(npu::hw::row_page_bytes(d), 8192u);  // 1024 columns x 8 B
  const std::string w = npu::hw::channel_interleave_warning(d, "board.yaml");
  EXPECT_NE(w.find("board.yaml: warning: ddr.address_mapping 'rochrababgco' puts the channel field above bank/rank "
                   "bits: consecutive addresses stay in one channel for 256 KiB (one row page is 8 KiB)"),
            std::string::npos)
      << w;
  // A 1 MiB tensor: 1 MiB / 256 KiB = 4 single-channel runs.
  EXPECT_NE(w.find("a 1 MiB tensor is 4 run(s) of 256 KiB"), std::string::npos) << w;
  EXPECT_NE(w.find("fix: put 'ch' right above the column: 'rorababgchco'"), std::string::npos) << w;
  EXPECT_NE(w.find("or in the lowest bits: 'rorababgcoch'"), std::string::npos) << w;
  // Both suggestions are quiet: ch right above co interleaves every 8 KiB row page (offset 6
  // + co 7 = bit 13), ch lowest every 64 B burst.
  d.address_mapping = "rorababgchco";
  EXPECT_EQ(npu::hw::channel_interleave_bytes(d), 8192u);
  EXPECT_EQ(npu::hw::channel_interleave_warning(d, "board.yaml"), "");
  d.address_mapping = "rorababgcoch";
  EXPECT_EQ(npu::hw::channel_interleave_bytes(d), 64u);
  EXPECT_EQ(npu::hw::channel_interleave_warning(d, "board.yaml"), "");
  // One channel: nothing to interleave.
  EXPECT_EQ(npu::hw::channel_interleave_warning(edge_ddr(), "edge"), "");
}

TEST(ChannelInterleave, ConfigCheckWarnsButAccepts) {
  std::string text = npu::test::read_file(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  const auto p = text.find("channels: 1");
  ASSERT_NE(p, std::string::npos);
  text.replace(p, 11, "channels: 2");
  const std::string dir = npu::test::fresh_dir("interleave");
  const std::string cfg = dir + "/two-channels.yaml";
  std::ofstream(cfg) << text;
  auto r = npu::test::run_tool("config check " + cfg);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find(cfg + ": warning: ddr.address_mapping 'rochrababgco' puts the channel field above"),
            std::string::npos)
      << r.output;
  r = npu::test::run_tool("config check --json " + cfg + " 2>/dev/null");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.output.find("\"warnings\": [\n    \"" + cfg + ": warning: ddr.address_mapping"), std::string::npos)
      << r.output;
  // The presets (2-channel ones interleave per row page) are quiet.
  for (const char* preset : {"edge-npu-ddr4", "mobile-npu-lpddr4", "tpu-v1-like", "hbm2-npu"}) {
    r = npu::test::run_tool(std::string("config check configs/") + preset + ".yaml");
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.output.find("warning"), std::string::npos) << preset << ": " << r.output;
  }
}

}  // namespace
