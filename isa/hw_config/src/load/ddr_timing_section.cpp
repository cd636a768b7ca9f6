// The `ddr.timing` map (DRAM clocks, JEDEC names) and the rules its values must satisfy
// together: row cycle, _L vs _S spacings, four-activate window, refresh; then the standard's
// own rules (hw_config_rules.cpp).
#include "load/loader.hpp"

#include "hw_config_rules.hpp"
#include "npu/hw_config/ddr_refresh_rule.hpp"

namespace npu::config_loader {
namespace {

/// tREFI must leave a request time between refreshes (min_refresh_interval_ck), else every
/// queued request waits forever: e.g. tREFI one clock above tRFC passed the plain
/// tREFI > tRFC rule and `npu run` never ended.
void check_refresh_leaves_time(Loader& in, const DdrConfig& d) {
  const DdrTimingCk& t = d.timing;
  const std::int64_t need = min_refresh_interval_ck(d);
  if (t.t_refi >= need) return;
  const std::int64_t write_recovery = std::int64_t(t.cwl) + d.burst_length / 2 + t.t_wr + t.t_rp;
  in.fail(in.mark_of("ddr.timing.tREFI"),
          fmt::format("timing cannot hold: tREFI = {} tCK leaves {} tCK between refreshes (tREFI - tRFC {}), less "
                      "than one request needs: tRCD {} + max(tRC {}, CWL + BL/2 + tWR + tRP = {}) + {} refresh "
                      "precharge slots = {} tCK; queued requests would wait forever",
                      t.t_refi, std::int64_t(t.t_refi) - t.t_rfc, t.t_rfc, t.t_rcd, t.t_rc, write_recovery,
                      std::int64_t(d.ranks) * d.bank_groups * d.banks_per_group, need - t.t_rfc),
          fmt::format("  set tREFI >= {} tCK. JEDEC keeps refresh a small share of time: tREFI 7.8 us (DDR3, DDR4; "
                      "3.9 us LPDDR4, DDR5, HBM2) against tRFC 160/260/350/550 ns for 2/4/8/16 Gb DDR4 "
                      "(JESD79-4), i.e. tRFC/tREFI <= 7 %",
                      need));
}

void check_timing_rules(Loader& in, const DdrConfig& d) {
  const DdrTimingCk& t = d.timing;
  const std::string p = "ddr.timing.";
  // A row stays open at least tRAS and needs tRP to close: ACT-to-ACT on a bank >= tRAS + tRP
  // (JESD79-4 and JESD79-3 define tRC = tRAS + tRP at every speed bin).
  const std::int64_t ras_rp = std::int64_t(t.t_ras) + t.t_rp;  // 64-bit: each may be INT_MAX
  if (t.t_rc < ras_rp)
    in.fail(in.mark_of(p + "tRC"),
            fmt::format("timing cannot hold: tRC = {} < tRAS + tRP = {} + {} = {} tCK", t.t_rc, t.t_ras, t.t_rp,
                        ras_rp),
            fmt::format("  a bank's activate-to-activate time covers the open row (tRAS) and its precharge (tRP); "
                        "set tRC >= {}",
                        ras_rp));
  if (t.t_ras < t.t_rcd)
    in.fail(in.mark_of(p + "tRAS"),
            fmt::format("timing cannot hold: tRAS = {} < tRCD = {} tCK", t.t_ras, t.t_rcd),
            fmt::format("  a row must stay open at least until its first column command; set tRAS >= {}", t.t_rcd));
  struct Pair {
    const char* s_name;
    const char* l_name;
    int s, l;
  };
  for (const Pair& pr : {Pair{"tCCD_S", "tCCD_L", t.t_ccd_s, t.t_ccd_l}, Pair{"tRRD_S", "tRRD_L", t.t_rrd_s, t.t_rrd_l},
                         Pair{"tWTR_S", "tWTR_L", t.t_wtr_s, t.t_wtr_l}}) {
    if (pr.l < pr.s)
      in.fail(in.mark_of(p + pr.l_name),
              fmt::format("timing cannot hold: {} = {} < {} = {} tCK", pr.l_name, pr.l, pr.s_name, pr.s),
              fmt::format("  the same-bank-group (_L) spacing is never shorter than the different-group (_S) one; "
                          "without bank groups set both equal (set {} >= {})",
                          pr.l_name, pr.s));
  }
  if (t.t_faw < t.t_rrd_l)
    in.fail(in.mark_of(p + "tFAW"),
            fmt::format("timing cannot hold: tFAW = {} < tRRD_L = {} tCK", t.t_faw, t.t_rrd_l),
            fmt::format("  the four-activate window spans at least one activate-to-activate gap; set tFAW >= {}",
                        t.t_rrd_l));
  // A burst length the standard does not define is named before the tCCD_S it breaks: a DDR4
  // BL16 said "set tCCD_S >= 8", a fix that only led to the burst-length error.
  const auto bin = detail::speed_bin_issue(d);
  if (std::int64_t(t.t_ccd_s) * 2 < d.burst_length && bin && bin->key == "ddr.burst_length")
    in.fail(in.mark_of(bin->key), bin->what, bin->hint);
  if (std::int64_t(t.t_ccd_s) * 2 < d.burst_length)
    in.fail(in.mark_of(p + "tCCD_S"),
            fmt::format("timing cannot hold: tCCD_S = {} tCK is shorter than one burst (burst_length {} / 2 = {} tCK)",
                        t.t_ccd_s, d.burst_length, d.burst_length / 2),
            fmt::format("  back-to-back bursts cannot overlap on the data bus; set tCCD_S >= {}", d.burst_length / 2));
  if (t.t_refi <= t.t_rfc)
    in.fail(in.mark_of(p + "tREFI"),
            fmt::format("timing cannot hold: tREFI = {} <= tRFC = {} tCK (the device would refresh forever)", t.t_refi,
                        t.t_rfc),
            "  tREFI is the average refresh interval (7.8 us for DDR3/DDR4, 3.9 us for LPDDR4), tRFC one refresh's "
            "duration; check the units (both in tCK)");
  check_refresh_leaves_time(in, d);
  // A refresh activates and precharges rows inside the device, so it lasts at least one row
  // cycle: every JEDEC table has tRFC far above tRC (JESD79-4 DDR4-3200 8 Gb: tRFC1 350 ns =
  // 560 tCK, tRC 45.75 ns = 74 tCK; the HBM2 preset: tRFC 260 ns, tRC 48 ns).
  if (t.t_rfc < t.t_rc)
    in.fail(in.mark_of(p + "tRFC"),
            fmt::format("timing cannot hold: tRFC = {} < tRC = {} tCK (a refresh is shorter than one row cycle)",
                        t.t_rfc, t.t_rc),
            fmt::format("  a refresh opens and closes rows, so it lasts at least tRC; JEDEC gives tRFC per die "
                        "density (JESD79-4 DDR4 8 Gb: 350 ns; 16 Gb: 550 ns); set tRFC >= {} (in tCK)",
                        t.t_rc));
  if (auto issue = detail::jedec_issue(d)) in.fail(in.mark_of(issue->key), issue->what, issue->hint);
  if (auto issue = detail::speed_bin_issue(d)) in.fail(in.mark_of(issue->key), issue->what, issue->hint);
}

}  // namespace

void load_ddr_timing_section(Loader& in, const Section& ddr, DdrConfig& d) {
  Section s = in.open(ddr, "timing");
  DdrTimingCk& t = d.timing;
  t.cl = in.get_int(s, "CL", 1);
  t.cwl = in.get_int(s, "CWL", 1);
  t.t_rcd = in.get_int(s, "tRCD", 1);
  t.t_rp = in.get_int(s, "tRP", 1);
  t.t_ras = in.get_int(s, "tRAS", 1);
  t.t_rc = in.get_int(s, "tRC", 1);
  t.t_ccd_s = in.get_int(s, "tCCD_S", 1);
  t.t_ccd_l = in.get_int(s, "tCCD_L", 1);
  t.t_rrd_s = in.get_int(s, "tRRD_S", 1);
  t.t_rrd_l = in.get_int(s, "tRRD_L", 1);
  t.t_faw = in.get_int(s, "tFAW", 1);
  t.t_wr = in.get_int(s, "tWR", 1);
  t.t_wtr_s = in.get_int(s, "tWTR_S", 1);
  t.t_wtr_l = in.get_int(s, "tWTR_L", 1);
  t.t_rtp = in.get_int(s, "tRTP", 1);
  t.t_rfc = in.get_int(s, "tRFC", 1);
  t.t_refi = in.get_int(s, "tREFI", 1);
  if (s.has("tRTRS")) t.t_rtrs = in.get_int(s, "tRTRS", 0);
  check_timing_rules(in, d);
}

}  // namespace npu::config_loader
