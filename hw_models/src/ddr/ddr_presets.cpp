// Preset values; the source of each number is in the comment beside it (see the key in
// ddr_presets.hpp). "x ns -> n" means ceil(x / tCK) = n.
#include "npu/hw/ddr/ddr_presets.hpp"

namespace npu::hw {

DdrConfig ddr4_3200() {
  DdrConfig c;
  c.standard = "DDR4";
  c.data_rate_mtps = 3200;  // tCK = 0.625 ns
  c.channels = 1;
  c.ranks = 2;
  c.bank_groups = 4;        // [JESD79-4] x8: 4 bank groups
  c.banks_per_group = 4;    // [JESD79-4] x8: 4 banks per group
  c.rows = 65536;           // [MT40A1G8] 8 Gb x8: row address A[15:0]
  c.columns = 1024;         // [MT40A1G8] column address A[9:0], 1 KB page
  c.device_width = 8;
  c.bus_width_bits = 64;
  c.burst_length = 8;
  c.address_mapping = "rochrababgco";
  c.page_policy = PagePolicy::Open;
  c.queue_depth = 32;
  DdrTimingCk& t = c.timing;
  t.cl = 22;        // [JESD79-4] DDR4-3200AA: CL 22 (13.75 ns)
  t.cwl = 16;       // [JESD79-4] CWL 16 for 1/tCK = 1600 MHz, 1tCK write preamble; [DRAMSim3] 16
  t.t_rcd = 22;     // [JESD79-4] DDR4-3200AA: tRCD 13.75 ns -> 22
  t.t_rp = 22;      // [JESD79-4] DDR4-3200AA: tRP 13.75 ns -> 22
  t.t_ras = 52;     // [JESD79-4] tRAS 32 ns -> 52 (51.2)
  t.t_rc = 74;      // [JESD79-4] tRC = tRAS + tRP = 45.75 ns -> 74 (73.2)
  t.t_ccd_s = 4;    // [JESD79-4] tCCD_S 4 nCK
  t.t_ccd_l = 8;    // [JESD79-4] DDR4-3200: tCCD_L max(5 nCK, 5 ns) -> 8
  t.t_rrd_s = 4;    // [JESD79-4] 1 KB page: tRRD_S max(4 nCK, 2.5 ns) -> 4
  t.t_rrd_l = 8;    // [JESD79-4] 1 KB page: tRRD_L max(4 nCK, 4.9 ns) -> 8 (7.84)
  t.t_faw = 34;     // [JESD79-4] 1 KB page, DDR4-3200: tFAW 21 ns -> 34 (33.6)
  t.t_wr = 24;      // [JESD79-4] tWR 15 ns -> 24
  t.t_wtr_s = 4;    // [JESD79-4] tWTR_S max(2 nCK, 2.5 ns) -> 4
  t.t_wtr_l = 12;   // [JESD79-4] tWTR_L max(4 nCK, 7.5 ns) -> 12
  t.t_rtp = 12;     // [JESD79-4] tRTP max(4 nCK, 7.5 ns) -> 12
  t.t_rfc = 560;    // [JESD79-4] 8 Gb: tRFC1 350 ns -> 560
  t.t_refi = 12480; // [JESD79-4] tREFI 7.8 us (0..85 C) -> 12480
  t.t_rtrs = 2;     // rank-to-rank data-bus gap: controller choice (not a JEDEC value; DRAMSim3 uses 1)
  return c;
}

DdrConfig lpddr4_3200() {
  DdrConfig c;
  c.standard = "LPDDR4";
  c.data_rate_mtps = 3200;  // tCK = 0.625 ns
  c.channels = 1;
  c.ranks = 1;
  c.bank_groups = 1;        // [JESD209-4] no bank groups
  c.banks_per_group = 8;    // [JESD209-4] 8 banks per channel
  c.rows = 32768;           // [JESD209-4] 8 Gb die (4 Gb per channel) x16: R[14:0]; [Ramulator] 1<<15
  c.columns = 1024;         // [JESD209-4] C[9:0]; 2 x16 channels in lock-step = 4 KB row
  c.device_width = 16;
  c.bus_width_bits = 32;    // two x16 channels of one die, 12.8 GB/s
  c.burst_length = 16;      // [JESD209-4] BL16 -> 64 B per burst on 32 bits
  c.address_mapping = "rochrababgco";
  c.page_policy = PagePolicy::Open;
  c.queue_depth = 32;
  DdrTimingCk& t = c.timing;
  t.cl = 28;        // [JESD209-4] RL 28 at 3200 MT/s, read DBI off ([Ramulator] adds 4 for its 1-cycle commands)
  t.cwl = 14;       // [JESD209-4] WL 14, set A
  t.t_rcd = 29;     // [JESD209-4] tRCD max(18 ns, 4 nCK) -> 29 (28.8)
  t.t_rp = 29;      // [JESD209-4] tRPpb max(18 ns, 3 nCK) -> 29
  t.t_ras = 68;     // [JESD209-4] tRAS max(42 ns, 3 nCK) -> 68 (67.2)
  t.t_rc = 97;      // tRAS + tRPpb = 68 + 29
  t.t_ccd_s = 8;    // [JESD209-4] tCCD = BL/2 = 8 nCK
  t.t_ccd_l = 8;    // no bank groups: same as tCCD_S
  t.t_rrd_s = 16;   // [JESD209-4] tRRD max(10 ns, 4 nCK) -> 16
  t.t_rrd_l = 16;   // no bank groups: same as tRRD_S
  t.t_faw = 64;     // [JESD209-4] tFAW 40 ns -> 64
  t.t_wr = 29;      // [JESD209-4] tWR max(18 ns, 6 nCK) -> 29 (28.8)
  t.t_wtr_s = 16;   // [JESD209-4] tWTR max(10 ns, 8 nCK) -> 16
  t.t_wtr_l = 16;   // no bank groups
  t.t_rtp = 12;     // [JESD209-4] tRTP max(7.5 ns, 8 nCK) -> 12
  t.t_rfc = 288;    // [JESD209-4] tRFCab 180 ns for 4 Gb per channel -> 288; [Ramulator] 288
  t.t_refi = 6246;  // [JESD209-4] tREFI 3.904 us / 0.625 ns = 6246.4, rounded down (a maximum interval)
  t.t_rtrs = 2;     // single rank: unused
  return c;
}

DdrConfig ddr3_2133() {
  DdrConfig c;
  c.standard = "DDR3";
  c.data_rate_mtps = 2133;  // tCK = 0.9377 ns (JEDEC rounds to 0.938)
  c.channels = 1;
  c.ranks = 2;
  c.bank_groups = 1;        // [JESD79-3] no bank groups
  c.banks_per_group = 8;    // [JESD79-3] 8 banks
  c.rows = 65536;           // [JESD79-3] 8 Gb x8: A[15:0]; [DRAMSim3] DDR3_8Gb_x8: 65536
  c.columns = 2048;         // [JESD79-3] 8 Gb x8: 2 KB page; [DRAMSim3] 2048
  c.device_width = 8;
  c.bus_width_bits = 64;
  c.burst_length = 8;
  c.address_mapping = "rochrababgco";
  c.page_policy = PagePolicy::Open;
  c.queue_depth = 32;
  DdrTimingCk& t = c.timing;
  t.cl = 14;        // [JESD79-3] DDR3-2133N: CL 14
  t.cwl = 10;       // [JESD79-3] CWL 10 for 0.938 ns <= tCK < 1.071 ns
  t.t_rcd = 14;     // [JESD79-3] DDR3-2133N: tRCD 13.09 ns -> 14
  t.t_rp = 14;      // [JESD79-3] DDR3-2133N: tRP 13.09 ns -> 14
  t.t_ras = 36;     // [JESD79-3] tRAS 33 ns -> 36 (35.2)
  t.t_rc = 50;      // [JESD79-3] tRC 46.09 ns -> 50 (= tRAS + tRP)
  t.t_ccd_s = 4;    // [JESD79-3] tCCD 4 nCK
  t.t_ccd_l = 4;    // no bank groups
  t.t_rrd_s = 7;    // [JESD79-3] 2 KB page, DDR3-2133: tRRD max(4 nCK, 6 ns) -> 7 (6.4)
  t.t_rrd_l = 7;    // no bank groups
  t.t_faw = 38;     // [JESD79-3] 2 KB page, DDR3-2133: tFAW 35 ns -> 38 (37.3)
  t.t_wr = 16;      // [JESD79-3] tWR 15 ns -> 16
  t.t_wtr_s = 8;    // [JESD79-3] tWTR max(4 nCK, 7.5 ns) -> 8
  t.t_wtr_l = 8;    // no bank groups
  t.t_rtp = 8;      // [JESD79-3] tRTP max(4 nCK, 7.5 ns) -> 8
  t.t_rfc = 374;    // [JESD79-3] 8 Gb: tRFC 350 ns -> 374 (373.3)
  t.t_refi = 8318;  // [JESD79-3] tREFI 7.8 us / 0.9376 ns = 8318.7, rounded down (a maximum interval)
  t.t_rtrs = 2;
  return c;
}

DdrConfig hbm2() {
  DdrConfig c;
  c.standard = "HBM2";
  c.data_rate_mtps = 2000;  // [JESD235] 2 Gb/s per pin: tCK = 1 ns
  c.channels = 1;
  c.ranks = 1;
  c.bank_groups = 4;        // [JESD235] 8 Gb channel: 4 bank groups
  c.banks_per_group = 4;    // [JESD235] 16 banks; [DRAMSim3] HBM2_8Gb_x128
  c.rows = 32768;           // [DRAMSim3] HBM2_8Gb_x128: rows 32768
  c.columns = 64;           // [DRAMSim3] columns 64 (128-bit columns: 1 KB row)
  c.device_width = 128;
  c.bus_width_bits = 128;   // [JESD235] legacy mode: 128-bit channel
  c.burst_length = 4;       // [JESD235] BL4 -> 64 B per burst
  c.address_mapping = "rochrababgco";
  c.page_policy = PagePolicy::Open;
  c.queue_depth = 32;
  DdrTimingCk& t = c.timing;
  t.cl = 14;        // [DRAMSim3] HBM2_8Gb_x128 CL 14 (14 ns)
  t.cwl = 4;        // [DRAMSim3] CWL 4
  t.t_rcd = 14;     // [DRAMSim3] tRCDRD 14
  t.t_rp = 14;      // [DRAMSim3] tRP 14
  t.t_ras = 34;     // [DRAMSim3] tRAS 34
  t.t_rc = 48;      // tRAS + tRP
  t.t_ccd_s = 2;    // [JESD235] tCCDS 1 nCK per BL2 burst (Ramulator HBM nCCDS 1); a BL4 burst is two
  t.t_ccd_l = 4;    // [JESD235] tCCDL 2 nCK per BL2 burst (Ramulator HBM nCCDL 2), doubled for BL4
  t.t_rrd_s = 4;    // [DRAMSim3] tRRD_S 4
  t.t_rrd_l = 6;    // [DRAMSim3] tRRD_L 6
  t.t_faw = 30;     // [DRAMSim3] tFAW 30
  t.t_wr = 16;      // [DRAMSim3] tWR 16
  t.t_wtr_s = 6;    // [DRAMSim3] tWTR_S 6
  t.t_wtr_l = 8;    // [DRAMSim3] tWTR_L 8
  t.t_rtp = 4;      // [DRAMSim3] tRTP_S 4 (tRTP_L 6 is not modelled separately)
  t.t_rfc = 260;    // [DRAMSim3] tRFC 260 (8 Gb)
  t.t_refi = 3900;  // [JESD235] tREFI 3.9 us -> 3900
  t.t_rtrs = 2;     // single rank: unused
  return c;
}

DdrConfig hbm2_2stack() {
  // Two HBM2 stacks at 2.4 Gb/s per pin ([JESD235B] speed, shipped as Samsung Aquabolt
  // [Aquabolt]): 2 x 8 legacy-mode channels of 128 bit, each organised as DRAMSim3's
  // HBM2_8Gb_x128 (as hbm2()). DRAMSim3's timings are given at tCK = 1 ns; here they are the
  // same nanoseconds at tCK = 2000 / 2400 = 0.8333 ns, rounded up as JESD79-4 section 13.5
  // prescribes (nCK = truncate(ns x 1000 / tCK_ps + 0.974)); per-burst spacings (tCCD) stay
  // in clocks.
  DdrConfig c = hbm2();
  c.data_rate_mtps = 2400;  // [JESD235B] / [Aquabolt] 2.4 Gb/s per pin: 38.4 GB/s per channel
  c.channels = 16;          // two stacks x 8 channels: 16 x 38.4 = 614.4 GB/s
  // Channel and bank-group interleaving: a sequential stream alternates the 4 bank groups
  // every 64 B burst (tCCD_S = BL/2: the channel's data bus stays full) and changes channel
  // every 256 B, so it spreads over all 16 channels (docs/config.md "Channel interleaving").
  c.address_mapping = "rorabacochbg";
  DdrTimingCk& t = c.timing;
  t.cl = 17;        // 14 ns -> 16.8 -> 17
  t.cwl = 5;        // 4 ns -> 4.8 -> 5
  t.t_rcd = 17;     // 14 ns -> 17
  t.t_rp = 17;      // 14 ns -> 17
  t.t_ras = 41;     // 34 ns -> 40.8 -> 41
  t.t_rc = 58;      // tRAS + tRP (48 ns -> 57.6 -> 58)
  t.t_ccd_s = 2;    // [JESD235] 1 nCK per BL2 burst, x2 for BL4 (clocks, not ns)
  t.t_ccd_l = 4;    // [JESD235] 2 nCK per BL2 burst, x2 for BL4
  t.t_rrd_s = 5;    // 4 ns -> 4.8 -> 5
  t.t_rrd_l = 8;    // 6 ns -> 7.2 -> 8
  t.t_faw = 36;     // 30 ns -> 36.0 -> 36
  t.t_wr = 20;      // 16 ns -> 19.2 -> 20
  t.t_wtr_s = 8;    // 6 ns -> 7.2 -> 8
  t.t_wtr_l = 10;   // 8 ns -> 9.6 -> 10
  t.t_rtp = 5;      // 4 ns -> 4.8 -> 5
  t.t_rfc = 312;    // 260 ns -> 312.0 -> 312
  t.t_refi = 4680;  // [JESD235] 3.9 us / 0.8333 ns = 4680 (a maximum interval: rounded down)
  return c;
}

std::vector<std::string> ddr_preset_names() {
  return {"ddr4-3200", "lpddr4-3200", "ddr3-2133", "hbm2", "hbm2-2stack"};
}

DdrConfig ddr_preset(const std::string& name) {
  if (name == "ddr4-3200") return ddr4_3200();
  if (name == "lpddr4-3200") return lpddr4_3200();
  if (name == "ddr3-2133") return ddr3_2133();
  if (name == "hbm2") return hbm2();
  if (name == "hbm2-2stack") return hbm2_2stack();
  std::string list;
  for (const auto& n : ddr_preset_names()) list += (list.empty() ? "" : ", ") + n;
  throw ConfigError("error: unknown DDR preset '" + name + "'\n  fix: use one of " + list);
}

}  // namespace npu::hw
