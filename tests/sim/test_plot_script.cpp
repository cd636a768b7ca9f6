// scripts/plot_experiment.py on a summary with 10 hardware configs: exits 0 and writes a
// strategy plot sized by the number of bars (labels wrapped and rotated, legend outside).
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "tool_runner.hpp"

namespace {

bool have_matplotlib() {
  return npu::test::run_shell("/usr/bin/python3 -c 'import matplotlib, pandas'").status == 0;
}

// Writes summary.csv/json with `configs` hw configs x 4 strategies of one model; no run
// folders, so only the strategy plot is drawn.
void write_summary(const std::string& dir, int configs) {
  std::ofstream csv(dir + "/summary.csv"), js(dir + "/summary.json");
  csv << "model,hw,strategy,status,ddr_read_mb,ddr_write_mb,ddr_total_mb,latency_ms,cycles,speedup_vs_none,"
         "ddr_saved_pct,mac_utilisation,ddr_bw_utilisation,energy_mj,host_nodes,host_mac_pct,host_time_pct,plan_sram_bytes,error\n";
  js << "[";
  bool first = true;
  for (int c = 0; c < configs; ++c) {
    const std::string hw = "edge-npu-ddr4-bw" + std::to_string(6 << (c % 5)) + "-sram" + std::to_string(512 << (c / 5)) + "k";
    for (const char* s : {"none", "conv-bn", "conv-bn-act", "residual"}) {
      csv << "resnet50," << hw << "," << s << ",ok,60,40,100,10,10000000,,,0.3,0.3,,0,0,0,1048576,\n";
      js << (first ? "" : ",") << "{\"model\":\"resnet50\",\"hw\":\"" << hw << "\",\"strategy\":\"" << s
         << "\",\"status\":\"ok\",\"run_dir\":\"" << dir << "/runs/none\",\"ddr_total_mb\":100}";
      first = false;
    }
  }
  js << "]\n";
}

// Width and height of a PNG from its IHDR chunk (big-endian at bytes 16..23).
std::pair<std::uint32_t, std::uint32_t> png_size(const std::string& png) {
  auto be32 = [&](std::size_t at) {
    return std::uint32_t(std::uint8_t(png[at])) << 24 | std::uint32_t(std::uint8_t(png[at + 1])) << 16 |
           std::uint32_t(std::uint8_t(png[at + 2])) << 8 | std::uint32_t(std::uint8_t(png[at + 3]));
  };
  return png.size() >= 24 ? std::make_pair(be32(16), be32(20)) : std::make_pair(0u, 0u);
}

std::pair<std::uint32_t, std::uint32_t> plot(int configs) {
  const std::string dir = npu::test::fresh_dir("plot" + std::to_string(configs));
  write_summary(dir, configs);
  const auto r = npu::test::run_shell("/usr/bin/python3 '" + std::string(NPU_SOURCE_DIR) +
                                      "/scripts/plot_experiment.py' '" + dir + "'");
  EXPECT_EQ(r.status, 0) << r.output;
  const std::string png = npu::test::read_file(dir + "/plots/strategies_resnet50.png");
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  return png_size(png);
}

TEST(PlotScript, TenConfigsGetAFigureSizedByTheirCount) {
  if (!have_matplotlib()) GTEST_SKIP() << "python3-matplotlib / python3-pandas not installed (scripts/setup.sh)";
  // 10 configs x 4 strategies: each panel 10 x (0.22 x 4 + 0.5) = 13.8 in wide, the two panels
  // stacked (more than 4 configs) in 8.5 in; at 110 dpi 1518 x 935 px before the tight crop
  // (which adds the outside legend and trims margins: allow 10 %).
  const auto [w10, h10] = plot(10);
  EXPECT_GE(w10, 1366u);
  EXPECT_GE(h10, 841u);
  // 2 configs: panels of the 5 in minimum side by side, 4.5 in high: 1100 x 495 px.
  const auto [w2, h2] = plot(2);
  EXPECT_LT(w2, w10);
  EXPECT_LT(h2, 600u);
}

}  // namespace
