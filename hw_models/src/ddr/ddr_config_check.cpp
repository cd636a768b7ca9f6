#include "npu/hw/ddr/ddr_config_check.hpp"

#include <algorithm>

#include "npu/hw/ddr/address_mapper.hpp"
#include "npu/hw_config/ddr_refresh_rule.hpp"

#include "ddr_config_fail.hpp"

namespace npu::hw {

namespace {

using ddr_detail::fail;

void require_positive(const std::string& source, const char* key, long long v, const char* unit) {
  if (v < 1) {
    fail(source, std::string("ddr.") + key + " = " + std::to_string(v) + " " + unit + " must be >= 1",
         std::string("set ddr.") + key + " to a positive value from the device datasheet");
  }
}

}  // namespace

WriteWatermarks resolved_watermarks(const DdrConfig& cfg) {
  WriteWatermarks w;
  // In 64 bits: 3 x queue_depth must not wrap for any int depth (validate_ddr_config bounds it).
  w.high = cfg.write_high_watermark > 0 ? cfg.write_high_watermark
                                        : int(std::max<std::int64_t>(1, std::int64_t(cfg.queue_depth) * 3 / 4));
  // Derived as the loader derives it (ddr_section.cpp, docs/config.md "1/4 x queue_depth, below
  // high"): queue_depth / 4 alone gave low 8 under high 1 at depth 32, a config the loader had
  // accepted that then failed when the model was built (new-user finding).
  w.low = cfg.write_low_watermark > 0 ? cfg.write_low_watermark : std::min(cfg.queue_depth / 4, w.high - 1);
  return w;
}

namespace {

/// Positive counts, the queue bound, whole bytes per beat, devices that fill the bus, whole
/// bursts per row, and (through AddressMapper) a valid mapping with power-of-two counts.
void check_organisation(const DdrConfig& cfg, const std::string& source) {
  require_positive(source, "data_rate_mtps", cfg.data_rate_mtps, "MT/s");
  require_positive(source, "channels", cfg.channels, "");
  require_positive(source, "ranks", cfg.ranks, "");
  require_positive(source, "bank_groups", cfg.bank_groups, "");
  require_positive(source, "banks_per_group", cfg.banks_per_group, "");
  require_positive(source, "rows", cfg.rows, "");
  require_positive(source, "columns", cfg.columns, "");
  require_positive(source, "device_width", cfg.device_width, "bits");
  require_positive(source, "bus_width_bits", cfg.bus_width_bits, "bits");
  require_positive(source, "burst_length", cfg.burst_length, "beats");
  require_positive(source, "queue_depth", cfg.queue_depth, "entries");
  if (cfg.queue_depth > kMaxDdrQueueDepth)
    fail(source, "ddr.queue_depth = " + std::to_string(cfg.queue_depth) + " is above the limit of " +
                     std::to_string(kMaxDdrQueueDepth),
         "give at most " + std::to_string(kMaxDdrQueueDepth) +
             " entries (the scheduler scans the whole queue per command; real controllers hold 32 to 128)");
  if (cfg.bus_width_bits % 8 != 0) {
    fail(source, "ddr.bus_width_bits = " + std::to_string(cfg.bus_width_bits) + " is not a whole number of bytes",
         "use a multiple of 8 (64 for a DDR4 DIMM, 32 for LPDDR4, 128 for an HBM2 channel)");
  }
  if (cfg.bus_width_bits % cfg.device_width != 0) {
    fail(source,
         "ddr.bus_width_bits = " + std::to_string(cfg.bus_width_bits) + " is not a multiple of device_width = " +
             std::to_string(cfg.device_width),
         "a rank is bus_width_bits / device_width devices side by side; pick widths that divide");
  }
  if (cfg.columns % cfg.burst_length != 0) {
    fail(source,
         "ddr.columns = " + std::to_string(cfg.columns) + " is not a multiple of burst_length = " +
             std::to_string(cfg.burst_length),
         "a row must hold a whole number of bursts");
  }
  AddressMapper check_mapping(cfg, source);  // throws on a bad mapping or non-power-of-two counts
  (void)check_mapping;
}

/// Every timing >= 1 tCK (tRTRS >= 0) and the relations between them.
void check_timings(const DdrConfig& cfg, const std::string& source) {
  const DdrTimingCk& t = cfg.timing;
  const struct {
    const char* key;
    int value;
  } timings[] = {{"CL", t.cl},         {"CWL", t.cwl},       {"tRCD", t.t_rcd},   {"tRP", t.t_rp},
                 {"tRAS", t.t_ras},    {"tRC", t.t_rc},      {"tCCD_S", t.t_ccd_s}, {"tCCD_L", t.t_ccd_l},
                 {"tRRD_S", t.t_rrd_s}, {"tRRD_L", t.t_rrd_l}, {"tFAW", t.t_faw},   {"tWR", t.t_wr},
                 {"tWTR_S", t.t_wtr_s}, {"tWTR_L", t.t_wtr_l}, {"tRTP", t.t_rtp},   {"tRFC", t.t_rfc},
                 {"tREFI", t.t_refi}};
  for (const auto& e : timings) require_positive(source, e.key, e.value, "tCK");
  if (t.t_rtrs < 0) {
    fail(source, "ddr.tRTRS = " + std::to_string(t.t_rtrs) + " tCK is negative", "use 0 or more (default 2)");
  }
  if (t.t_rc < t.t_ras + t.t_rp) {
    fail(source,
         "ddr.tRC = " + std::to_string(t.t_rc) + " tCK is less than tRAS + tRP = " + std::to_string(t.t_ras) +
             " + " + std::to_string(t.t_rp) + " = " + std::to_string(t.t_ras + t.t_rp) +
             " tCK: a row cycle cannot be shorter than keeping the row open and precharging it",
         "set tRC >= " + std::to_string(t.t_ras + t.t_rp) + " (JESD79-4: tRC = tRAS + tRP)");
  }
  if (t.t_ras < t.t_rcd) {
    fail(source,
         "ddr.tRAS = " + std::to_string(t.t_ras) + " tCK is less than tRCD = " + std::to_string(t.t_rcd) +
             " tCK: the row would close before it can be read",
         "set tRAS >= tRCD (check the datasheet's speed bin)");
  }
  const struct {
    const char* l;
    const char* s;
    int lv, sv;
  } pairs[] = {{"tCCD_L", "tCCD_S", t.t_ccd_l, t.t_ccd_s},
               {"tRRD_L", "tRRD_S", t.t_rrd_l, t.t_rrd_s},
               {"tWTR_L", "tWTR_S", t.t_wtr_l, t.t_wtr_s}};
  for (const auto& p : pairs) {
    if (p.lv < p.sv) {
      fail(source,
           std::string("ddr.") + p.l + " = " + std::to_string(p.lv) + " tCK is less than " + p.s + " = " +
               std::to_string(p.sv) + " tCK: the same-bank-group spacing cannot be shorter than the "
               "different-group one",
           std::string("swap them or set ") + p.l + " >= " + p.s + " (equal when there are no bank groups)");
    }
  }
  if (t.t_refi <= t.t_rfc) {
    fail(source,
         "ddr.tREFI = " + std::to_string(t.t_refi) + " tCK is not greater than tRFC = " + std::to_string(t.t_rfc) +
             " tCK: the rank would never leave refresh",
         "tREFI is the refresh interval (7.8 us for DDR4), tRFC the refresh duration (350 ns for 8 Gb)");
  }
  const std::int64_t need = min_refresh_interval_ck(cfg);
  if (t.t_refi < need) {
    fail(source,
         "ddr.tREFI = " + std::to_string(t.t_refi) + " tCK leaves " + std::to_string(t.t_refi - t.t_rfc) +
             " tCK between refreshes (tREFI - tRFC), less than one request needs (tRCD + max(tRC, CWL + BL/2 + "
             "tWR + tRP) + one precharge slot per bank = " + std::to_string(need - t.t_rfc) +
             " tCK): queued requests would wait forever",
         "set tREFI >= " + std::to_string(need) +
             " tCK; JEDEC: tREFI 7.8 us (DDR4) against tRFC 160-550 ns by density (JESD79-4), refresh <= 7 % of the time");
  }
}

void check_watermarks(const DdrConfig& cfg, const std::string& source) {
  WriteWatermarks w = resolved_watermarks(cfg);
  if (w.high > cfg.queue_depth || w.low < 0 || w.low >= w.high) {
    fail(source,
         "ddr write watermarks low = " + std::to_string(w.low) + ", high = " + std::to_string(w.high) +
             " do not satisfy 0 <= low < high <= queue_depth = " + std::to_string(cfg.queue_depth),
         "omit write_high_watermark and write_low_watermark for 3/4 and 1/4 of queue_depth (low below high), or give "
         "1 <= low < high <= queue_depth");
  }
}

}  // namespace

void validate_ddr_config(const DdrConfig& cfg, const std::string& source) {
  check_organisation(cfg, source);
  check_timings(cfg, source);
  check_watermarks(cfg, source);
}

}  // namespace npu::hw
