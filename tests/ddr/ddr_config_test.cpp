// Presets (peak figures derived by hand, equality with the edge and HBM2 NPU configs) and the
// validation of impossible DDR configs. Each preset's values: ddr_presets_test.cpp.
#include <gtest/gtest.h>

#include "npu/hw/ddr/ddr_config_check.hpp"
#include "npu/hw_config/ddr_presets.hpp"
#include "npu/hw/ddr/ddr_system.hpp"

namespace npu::hw {
namespace {

std::string error_of(const DdrConfig& c) {
  try {
    DdrSystem d(c, "test.yaml");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(DdrPresets, AllValidateAndHaveTheirPeakBandwidth) {
  for (const auto& name : ddr_preset_names()) EXPECT_NO_THROW(validate_ddr_config(ddr_preset(name), name)) << name;
  // Peak = data rate x bus bytes: 3200 MT/s x 8 B = 25.6 GB/s; LPDDR4 3200 x 4 B = 12.8;
  // DDR3 2133 x 8 B = 17.064; HBM2 2000 x 16 B = 32.0.
  EXPECT_DOUBLE_EQ(ddr4_3200().peak_gbps(), 25.6);
  EXPECT_DOUBLE_EQ(lpddr4_3200().peak_gbps(), 12.8);
  EXPECT_DOUBLE_EQ(ddr3_2133().peak_gbps(), 17.064);
  EXPECT_DOUBLE_EQ(hbm2().peak_gbps(), 32.0);
  // Two stacks x 8 channels x 2400 MT/s x 16 B = 614.4 GB/s ([Aquabolt]: 307.2 GB/s per stack).
  EXPECT_DOUBLE_EQ(hbm2_2stack().peak_gbps(), 614.4);
  EXPECT_EQ(hbm2_2stack().capacity_bytes(), 16 * hbm2().capacity_bytes());
  // Every preset moves 64 B per burst: 64/8 x 8, 32/8 x 16, 64/8 x 8, 128/8 x 4.
  for (const auto& name : ddr_preset_names()) EXPECT_EQ(ddr_preset(name).burst_bytes(), 64) << name;
  EXPECT_THROW(ddr_preset("ddr5"), ConfigError);
}

TEST(DdrPresets, Ddr4MatchesTheEdgeConfig) {
  // Issue 2's edge preset: CL22 tRCD22 tRP22 tRAS52 tRC74 tFAW34 tRRD_S/L 4/8
  // tCCD_S/L 4/8 tWTR_S/L 4/12 tWR24 tRTP12 tRFC560 tREFI12480, BL8, 4 BG x 4 banks,
  // 65536 x 1024, x8, 2 ranks, 64-bit, rochrababgco.
  const DdrConfig y = load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml").ddr;
  const DdrConfig c = ddr4_3200();
  EXPECT_EQ(c.data_rate_mtps, y.data_rate_mtps);
  EXPECT_EQ(c.channels, y.channels);
  EXPECT_EQ(c.ranks, y.ranks);
  EXPECT_EQ(c.bank_groups, y.bank_groups);
  EXPECT_EQ(c.banks_per_group, y.banks_per_group);
  EXPECT_EQ(c.rows, y.rows);
  EXPECT_EQ(c.columns, y.columns);
  EXPECT_EQ(c.device_width, y.device_width);
  EXPECT_EQ(c.bus_width_bits, y.bus_width_bits);
  EXPECT_EQ(c.burst_length, y.burst_length);
  EXPECT_EQ(c.address_mapping, y.address_mapping);
  EXPECT_EQ(c.queue_depth, y.queue_depth);
  const DdrTimingCk &a = c.timing, &b = y.timing;
  EXPECT_EQ(a.cl, b.cl);
  EXPECT_EQ(a.cwl, b.cwl);
  EXPECT_EQ(a.t_rcd, b.t_rcd);
  EXPECT_EQ(a.t_rp, b.t_rp);
  EXPECT_EQ(a.t_ras, b.t_ras);
  EXPECT_EQ(a.t_rc, b.t_rc);
  EXPECT_EQ(a.t_ccd_s, b.t_ccd_s);
  EXPECT_EQ(a.t_ccd_l, b.t_ccd_l);
  EXPECT_EQ(a.t_rrd_s, b.t_rrd_s);
  EXPECT_EQ(a.t_rrd_l, b.t_rrd_l);
  EXPECT_EQ(a.t_faw, b.t_faw);
  EXPECT_EQ(a.t_wr, b.t_wr);
  EXPECT_EQ(a.t_wtr_s, b.t_wtr_s);
  EXPECT_EQ(a.t_wtr_l, b.t_wtr_l);
  EXPECT_EQ(a.t_rtp, b.t_rtp);
  EXPECT_EQ(a.t_rfc, b.t_rfc);
  EXPECT_EQ(a.t_refi, b.t_refi);
  EXPECT_EQ(a.t_rtrs, b.t_rtrs);
  // And the issue's literal values:
  EXPECT_EQ(a.cl, 22);
  EXPECT_EQ(a.t_rc, 74);
  EXPECT_EQ(a.t_faw, 34);
  EXPECT_EQ(a.t_rfc, 560);
  EXPECT_EQ(a.t_refi, 12480);
}

void expect_same_ddr(const DdrConfig& a, const DdrConfig& b, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(a.standard, b.standard);
  EXPECT_EQ(a.data_rate_mtps, b.data_rate_mtps);
  EXPECT_EQ(a.channels, b.channels);
  EXPECT_EQ(a.ranks, b.ranks);
  EXPECT_EQ(a.bank_groups, b.bank_groups);
  EXPECT_EQ(a.banks_per_group, b.banks_per_group);
  EXPECT_EQ(a.rows, b.rows);
  EXPECT_EQ(a.columns, b.columns);
  EXPECT_EQ(a.device_width, b.device_width);
  EXPECT_EQ(a.bus_width_bits, b.bus_width_bits);
  EXPECT_EQ(a.burst_length, b.burst_length);
  EXPECT_EQ(a.address_mapping, b.address_mapping);
  EXPECT_EQ(a.page_policy, b.page_policy);
  EXPECT_EQ(a.queue_depth, b.queue_depth);
  const DdrTimingCk &x = a.timing, &y = b.timing;
  const int xs[] = {x.cl, x.cwl, x.t_rcd, x.t_rp, x.t_ras, x.t_rc, x.t_ccd_s, x.t_ccd_l, x.t_rrd_s, x.t_rrd_l,
                    x.t_faw, x.t_wr, x.t_wtr_s, x.t_wtr_l, x.t_rtp, x.t_rfc, x.t_refi, x.t_rtrs};
  const int ys[] = {y.cl, y.cwl, y.t_rcd, y.t_rp, y.t_ras, y.t_rc, y.t_ccd_s, y.t_ccd_l, y.t_rrd_s, y.t_rrd_l,
                    y.t_faw, y.t_wr, y.t_wtr_s, y.t_wtr_l, y.t_rtp, y.t_rfc, y.t_refi, y.t_rtrs};
  for (int i = 0; i < 18; ++i) EXPECT_EQ(xs[i], ys[i]) << "timing #" << i;
}

TEST(DdrPresets, NpuConfigsCarryThePresetDdrSections) {
  // The presets are configs/ddr/<name>.yaml (ddr_presets_test.cpp); configs/hbm2-npu.yaml
  // carries the same DDR section as hbm2-2stack (write watermarks aside: the presets leave
  // them 0 = derived, the loader resolves them).
  const std::string dir = std::string(NPU_SOURCE_DIR) + "/configs/";
  expect_same_ddr(load_hw_config(dir + "hbm2-npu.yaml").ddr, hbm2_2stack(), "hbm2-npu");
}

TEST(DdrConfigCheck, RowCycleShorterThanRasPlusRp) {
  DdrConfig c = ddr4_3200();
  c.timing.t_rc = 50;  // < tRAS 52 + tRP 22 = 74
  std::string msg = error_of(c);
  EXPECT_NE(msg.find("test.yaml: error: ddr.tRC = 50 tCK is less than tRAS + tRP = 52 + 22 = 74 tCK"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("fix: set tRC >= 74"), std::string::npos) << msg;
}

TEST(DdrConfigCheck, OtherImpossibleTimings) {
  DdrConfig c = ddr4_3200();
  c.timing.t_ccd_l = 2;  // < tCCD_S 4
  EXPECT_NE(error_of(c).find("ddr.tCCD_L = 2 tCK is less than tCCD_S = 4 tCK"), std::string::npos) << error_of(c);
  c = ddr4_3200();
  c.timing.t_refi = 500;  // <= tRFC 560
  EXPECT_NE(error_of(c).find("ddr.tREFI = 500 tCK is not greater than tRFC = 560"), std::string::npos);
  c = ddr4_3200();
  c.timing.cl = 0;
  EXPECT_NE(error_of(c).find("ddr.CL = 0 tCK must be >= 1"), std::string::npos);
  c = ddr4_3200();
  c.timing.t_ras = 20;  // < tRCD 22 (and tRC 74 >= 20 + 22 still holds)
  EXPECT_NE(error_of(c).find("ddr.tRAS = 20 tCK is less than tRCD = 22"), std::string::npos) << error_of(c);
}

TEST(DdrConfigCheck, UnknownMappingFieldAndBadWatermarks) {
  DdrConfig c = ddr4_3200();
  c.address_mapping = "rochrababgcx";
  EXPECT_NE(error_of(c).find("test.yaml: error: ddr.address_mapping 'rochrababgcx': unknown field 'cx' at column 11"),
            std::string::npos)
      << error_of(c);
  c = ddr4_3200();
  c.write_high_watermark = 8;
  c.write_low_watermark = 8;
  EXPECT_NE(error_of(c).find("do not satisfy 0 <= low < high <= queue_depth"), std::string::npos) << error_of(c);
}

TEST(DdrConfigCheck, WatermarkDefaults) {
  // 3/4 and 1/4 of queue_depth 32.
  WriteWatermarks w = resolved_watermarks(ddr4_3200());
  EXPECT_EQ(w.high, 24);
  EXPECT_EQ(w.low, 8);
}

TEST(DdrConfigCheck, ADerivedLowWatermarkStaysBelowAGivenHighOne) {
  // docs/config.md: the low mark defaults to 1/4 x queue_depth, below high. High 1 at depth 32
  // leaves low = min(32 / 4, 1 - 1) = 0 (drain the writes to empty); it was 8 and the config
  // the loader accepted failed when the DDR model was built (new-user finding).
  DdrConfig c = ddr4_3200();
  c.write_high_watermark = 1;
  c.write_low_watermark = 0;  // 0: derived
  const WriteWatermarks w = resolved_watermarks(c);
  EXPECT_EQ(w.high, 1);
  EXPECT_EQ(w.low, 0);
  EXPECT_EQ(error_of(c), "");
  c.write_high_watermark = 5;  // min(8, 4) = 4
  EXPECT_EQ(resolved_watermarks(c).low, 4);
}

}  // namespace
}  // namespace npu::hw
