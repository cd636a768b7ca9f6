// The DDR presets come from configs/ddr/*.yaml, built into npu_hw_config. These tests pin each
// preset field by field to the values the C++ presets had before (hw_models/src/ddr/
// ddr_presets.cpp, removed), written here from the datasheet figures beside them, so that a
// preset file cannot drift; and they check that every file in configs/ddr/ is a preset.
// tCK: DDR4/LPDDR4-3200 0.625 ns, DDR3-2133 0.9376 ns, HBM2 1 ns, HBM2 2.4 Gb/s 0.8333 ns;
// "x ns -> n" means ceil(x / tCK) = n.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "npu/hw_config/ddr_presets.hpp"

namespace npu {
namespace {

struct Organisation {
  const char* standard;
  int data_rate_mtps, channels, ranks, bank_groups, banks_per_group;
  std::int64_t rows, columns;
  int device_width, bus_width_bits, burst_length;
  const char* address_mapping;
};

void expect_preset(const std::string& name, const Organisation& o, const DdrTimingCk& t) {
  SCOPED_TRACE(name);
  const DdrConfig c = ddr_preset(name);
  EXPECT_EQ(c.standard, o.standard);
  EXPECT_EQ(c.data_rate_mtps, o.data_rate_mtps);
  EXPECT_EQ(c.channels, o.channels);
  EXPECT_EQ(c.ranks, o.ranks);
  EXPECT_EQ(c.bank_groups, o.bank_groups);
  EXPECT_EQ(c.banks_per_group, o.banks_per_group);
  EXPECT_EQ(c.rows, o.rows);
  EXPECT_EQ(c.columns, o.columns);
  EXPECT_EQ(c.device_width, o.device_width);
  EXPECT_EQ(c.bus_width_bits, o.bus_width_bits);
  EXPECT_EQ(c.burst_length, o.burst_length);
  EXPECT_EQ(c.address_mapping, o.address_mapping);
  EXPECT_EQ(c.page_policy, PagePolicy::Open);  // every preset: open page
  EXPECT_EQ(c.queue_depth, 32);                 // model choice: 32-entry read and write queues
  // Not in the files: 0 = derived from queue_depth (3/4 and 1/4) where used.
  EXPECT_EQ(c.write_high_watermark, 0);
  EXPECT_EQ(c.write_low_watermark, 0);
  const DdrTimingCk& a = c.timing;
  EXPECT_EQ(a.cl, t.cl);
  EXPECT_EQ(a.cwl, t.cwl);
  EXPECT_EQ(a.t_rcd, t.t_rcd);
  EXPECT_EQ(a.t_rp, t.t_rp);
  EXPECT_EQ(a.t_ras, t.t_ras);
  EXPECT_EQ(a.t_rc, t.t_rc);
  EXPECT_EQ(a.t_ccd_s, t.t_ccd_s);
  EXPECT_EQ(a.t_ccd_l, t.t_ccd_l);
  EXPECT_EQ(a.t_rrd_s, t.t_rrd_s);
  EXPECT_EQ(a.t_rrd_l, t.t_rrd_l);
  EXPECT_EQ(a.t_faw, t.t_faw);
  EXPECT_EQ(a.t_wr, t.t_wr);
  EXPECT_EQ(a.t_wtr_s, t.t_wtr_s);
  EXPECT_EQ(a.t_wtr_l, t.t_wtr_l);
  EXPECT_EQ(a.t_rtp, t.t_rtp);
  EXPECT_EQ(a.t_rfc, t.t_rfc);
  EXPECT_EQ(a.t_refi, t.t_refi);
  EXPECT_EQ(a.t_rtrs, t.t_rtrs);
}

DdrTimingCk timing(std::initializer_list<int> v) {
  std::vector<int> x(v);
  DdrTimingCk t;
  int* fields[] = {&t.cl,    &t.cwl,     &t.t_rcd,   &t.t_rp,    &t.t_ras,   &t.t_rc,
                   &t.t_ccd_s, &t.t_ccd_l, &t.t_rrd_s, &t.t_rrd_l, &t.t_faw,   &t.t_wr,
                   &t.t_wtr_s, &t.t_wtr_l, &t.t_rtp,   &t.t_rfc,   &t.t_refi,  &t.t_rtrs};
  EXPECT_EQ(x.size(), std::size(fields));
  for (std::size_t i = 0; i < x.size() && i < std::size(fields); ++i) *fields[i] = x[i];
  return t;
}

TEST(DdrPresetFiles, Ddr4_3200HasItsDatasheetValues) {
  // [JESD79-4] x8: 4 bank groups x 4 banks; [MT40A1G8] 8 Gb x8: A[15:0] rows, A[9:0] columns.
  // DDR4-3200AA: CL 22, tRCD/tRP 13.75 ns -> 22; tRAS 32 ns -> 52; tRC 45.75 ns -> 74;
  // tCCD_S 4, tCCD_L max(5 nCK, 5 ns) -> 8; 1 KB page: tRRD_S max(4 nCK, 2.5 ns) -> 4, tRRD_L
  // max(4 nCK, 4.9 ns) -> 8, tFAW 21 ns -> 34; tWR 15 ns -> 24; tWTR_S max(2 nCK, 2.5 ns) -> 4;
  // tWTR_L and tRTP max(4 nCK, 7.5 ns) -> 12; 8 Gb tRFC1 350 ns -> 560; tREFI 7.8 us -> 12480;
  // CWL 16; rank-to-rank gap 2 (controller choice).
  expect_preset("ddr4-3200", {"DDR4", 3200, 1, 2, 4, 4, 65536, 1024, 8, 64, 8, "rochrababgco"},
                timing({22, 16, 22, 22, 52, 74, 4, 8, 4, 8, 34, 24, 4, 12, 12, 560, 12480, 2}));
}

TEST(DdrPresetFiles, Lpddr4_3200HasItsDatasheetValues) {
  // [JESD209-4] no bank groups, 8 banks; 8 Gb die x16: R[14:0], C[9:0]; two x16 channels in
  // lock-step = 32 bit, BL16. RL 28, WL 14 (set A); tRCD/tRPpb 18 ns -> 29; tRAS 42 ns -> 68;
  // tRC = 68 + 29 = 97; tCCD = BL/2 = 8; tRRD max(10 ns, 4 nCK) -> 16; tFAW 40 ns -> 64;
  // tWR 18 ns -> 29; tWTR max(10 ns, 8 nCK) -> 16; tRTP max(7.5 ns, 8 nCK) -> 12;
  // tRFCab 180 ns -> 288; tREFI 3.904 us / 0.625 ns = 6246.4 -> 6246 (rounded down).
  expect_preset("lpddr4-3200", {"LPDDR4", 3200, 1, 1, 1, 8, 32768, 1024, 16, 32, 16, "rochrababgco"},
                timing({28, 14, 29, 29, 68, 97, 8, 8, 16, 16, 64, 29, 16, 16, 12, 288, 6246, 2}));
}

TEST(DdrPresetFiles, Ddr3_2133HasItsDatasheetValues) {
  // [JESD79-3] 8 banks, no bank groups; 8 Gb x8: A[15:0], 2 KB page (2048 columns).
  // DDR3-2133N: CL 14, CWL 10, tRCD/tRP 13.09 ns -> 14; tRAS 33 ns -> 36; tRC 46.09 ns -> 50;
  // tCCD 4; 2 KB page: tRRD max(4 nCK, 6 ns) -> 7, tFAW 35 ns -> 38; tWR 15 ns -> 16;
  // tWTR and tRTP max(4 nCK, 7.5 ns) -> 8; 8 Gb tRFC 350 ns -> 374; tREFI 7.8 us -> 8318.
  expect_preset("ddr3-2133", {"DDR3", 2133, 1, 2, 1, 8, 65536, 2048, 8, 64, 8, "rochrababgco"},
                timing({14, 10, 14, 14, 36, 50, 4, 4, 7, 7, 38, 16, 8, 8, 8, 374, 8318, 2}));
}

TEST(DdrPresetFiles, Hbm2HasItsDatasheetValues) {
  // [JESD235] legacy mode: 128-bit channel, BL4, 4 bank groups x 4 banks; [DRAMSim3]
  // HBM2_8Gb_x128: 32768 rows x 64 columns, CL 14, CWL 4, tRCDRD 14, tRP 14, tRAS 34,
  // tRC = 34 + 14 = 48, tRRD_S/L 4/6, tFAW 30, tWR 16, tWTR_S/L 6/8, tRTP_S 4, tRFC 260;
  // [JESD235] tCCD_S/L 1/2 nCK per BL2 burst, x2 for BL4; tREFI 3.9 us -> 3900.
  expect_preset("hbm2", {"HBM2", 2000, 1, 1, 4, 4, 32768, 64, 128, 128, 4, "rochrababgco"},
                timing({14, 4, 14, 14, 34, 48, 2, 4, 4, 6, 30, 16, 6, 8, 4, 260, 3900, 2}));
}

TEST(DdrPresetFiles, Hbm2TwoStackHasItsDatasheetValues) {
  // hbm2's organisation x 16 channels at 2400 MT/s ([JESD235B], [Aquabolt]), `rorabacochbg`;
  // hbm2's nanoseconds at tCK = 0.8333 ns: 14 -> 17, 4 -> 5, 34 -> 41, 48 -> 58, 6 -> 8, 30 -> 36,
  // 16 -> 20, 8 -> 10, 260 -> 312; tCCD stays 2/4 clocks; tREFI 3.9 us / 0.8333 ns = 4680.
  expect_preset("hbm2-2stack", {"HBM2", 2400, 16, 1, 4, 4, 32768, 64, 128, 128, 4, "rorabacochbg"},
                timing({17, 5, 17, 17, 41, 58, 2, 4, 5, 8, 36, 20, 8, 10, 5, 312, 4680, 2}));
}

TEST(DdrPresetFiles, NamedFunctionsAreTheNamedPresets) {
  EXPECT_EQ(ddr4_3200().timing.t_refi, ddr_preset("ddr4-3200").timing.t_refi);
  EXPECT_EQ(lpddr4_3200().standard, "LPDDR4");
  EXPECT_EQ(ddr3_2133().standard, "DDR3");
  EXPECT_EQ(hbm2().channels, 1);
  EXPECT_EQ(hbm2_2stack().channels, 16);
  EXPECT_EQ(ddr_preset_names(),
            (std::vector<std::string>{"ddr4-3200", "lpddr4-3200", "ddr3-2133", "hbm2", "hbm2-2stack"}));
}

TEST(DdrPresetFiles, EveryFileInConfigsDdrIsAPreset) {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(std::string(NPU_SOURCE_DIR) + "/configs/ddr"))
    if (e.path().extension() == ".yaml") files.push_back(e.path().stem().string());
  std::vector<std::string> names = ddr_preset_names();
  std::sort(files.begin(), files.end());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(files, names) << "add the file's name to NPU_DDR_PRESETS in isa/hw_config/CMakeLists.txt";
}

TEST(DdrPresetFiles, UnknownNameListsThePresets) {
  try {
    ddr_preset("ddr5");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "error: unknown DDR preset 'ddr5'\n  fix: use one of ddr4-3200, lpddr4-3200, ddr3-2133, hbm2, "
                 "hbm2-2stack");
  }
}

}  // namespace
}  // namespace npu
