// The `ddr` section: standard, organisation, address mapping, queues and write watermarks
// (docs/config.md "ddr"); its `timing` map is load/ddr_timing_section.cpp.
#include "load/loader.hpp"

#include <algorithm>

namespace npu::config_loader {
namespace {

const std::vector<std::string> kPagePolicies = {"open", "closed"};
const std::vector<std::string> kStandards = {"DDR3",   "DDR4",  "DDR5", "LPDDR3", "LPDDR4", "LPDDR4X", "LPDDR5",
                                             "GDDR5",  "GDDR6", "HBM",  "HBM2",   "HBM2E",  "HBM3"};

/// The keys that describe the part: standard, data rate, organisation, mapping, queues.
void read_ddr_organisation(Loader& in, const Section& s, DdrConfig& d) {
  d.standard = kStandards[in.get_enum(s, "standard", kStandards, "DDR standard")];
  d.data_rate_mtps = in.get_int(s, "data_rate_mtps", 1);
  // tCK = 2000 / data_rate_mtps ns: at 20000 MT/s it is 100 ps, the resolution the
  // timing model converts to; beyond that tCK rounds away (0-cycle transfers).
  if (d.data_rate_mtps > 20000)
    in.fail(in.vmark(s, "data_rate_mtps"),
            fmt::format("'ddr.data_rate_mtps' = {} MT/s is out of range: at most 20000", d.data_rate_mtps),
            "  tCK = 2000 / data_rate_mtps ns would be under 0.1 ns (today's fastest DRAM, HBM3E/GDDR7, is below "
            "20000 MT/s per pin); allowed: 1 to 20000, e.g. 3200 for DDR4-3200");
  d.channels = in.get_int(s, "channels", 1);
  d.ranks = in.get_int(s, "ranks", 1);
  d.bank_groups = in.get_int(s, "bank_groups", 1);
  d.banks_per_group = in.get_int(s, "banks_per_group", 1);
  d.rows = in.get_int64(s, "rows", 1);
  d.columns = in.get_int64(s, "columns", 1);
  d.device_width = in.get_int(s, "device_width", 1);
  d.bus_width_bits = in.get_int(s, "bus_width_bits", 1);
  d.burst_length = in.get_int(s, "burst_length", 1);
  if (s.has("address_mapping")) d.address_mapping = in.get_mapping(s, "address_mapping");
  if (s.has("page_policy"))
    d.page_policy = static_cast<PagePolicy>(in.get_enum(s, "page_policy", kPagePolicies, "page_policy"));
  if (s.has("queue_depth")) d.queue_depth = in.get_int(s, "queue_depth", 1);
}

/// Each field of the address mapping is a bit field, so every count it decodes must be
/// a power of two (otherwise some bit patterns name nothing and the mapping is not onto).
void check_ddr_organisation(Loader& in, const DdrConfig& d) {
  // Capacity = channels x ranks x bank_groups x banks x rows x columns x bus bytes must be
  // a 64-bit byte count; 2^50 B (1 PiB) is far above any real memory system.
  unsigned __int128 cap = 1;
  for (std::int64_t f : {std::int64_t(d.channels), std::int64_t(d.ranks), std::int64_t(d.bank_groups),
                         std::int64_t(d.banks_per_group), d.rows, d.columns, std::int64_t(d.bus_width_bits / 8)}) {
    cap *= static_cast<unsigned __int128>(f > 0 ? f : 1);
    if (cap > (static_cast<unsigned __int128>(1) << 100)) break;  // already far too large
  }
  if (cap > (static_cast<unsigned __int128>(1) << 50))
    in.fail(in.mark_of("ddr.rows"),
            "the DDR capacity channels x ranks x bank_groups x banks_per_group x rows x columns x bus_width_bits/8 "
            "is out of range: more than 2^50 bytes (1 PiB)",
            "  byte addresses and capacities are 64-bit counts; check 'ddr.rows' and 'ddr.columns' (e.g. 65536 "
            "rows x 1024 columns for DDR4 8 Gb x8)");
  const char* bits = "the address mapping decodes this count as a bit field";
  in.require_pow2("ddr.channels", std::uint64_t(d.channels), bits);
  in.require_pow2("ddr.ranks", std::uint64_t(d.ranks), bits);
  in.require_pow2("ddr.bank_groups", std::uint64_t(d.bank_groups), bits);
  in.require_pow2("ddr.banks_per_group", std::uint64_t(d.banks_per_group), bits);
  in.require_pow2("ddr.rows", std::uint64_t(d.rows), bits);
  in.require_pow2("ddr.columns", std::uint64_t(d.columns), bits);
  in.require_pow2("ddr.device_width", std::uint64_t(d.device_width), "devices are x4, x8, x16, x32, ...");
  in.require_pow2("ddr.burst_length", std::uint64_t(d.burst_length), "burst lengths are 2, 4, 8, 16, 32");
  if (d.bus_width_bits % 8 != 0 || !is_pow2(std::uint64_t(d.bus_width_bits / 8)))
    in.fail(in.mark_of("ddr.bus_width_bits"),
            fmt::format("'ddr.bus_width_bits' = {} is not a power-of-two number of bytes", d.bus_width_bits),
            "  the byte offset within a beat is the mapping's lowest bit field; allowed: 8, 16, 32, 64, 128, ...");
  if (d.bus_width_bits % d.device_width != 0)
    in.fail(in.mark_of("ddr.device_width"),
            fmt::format("'ddr.device_width' = {} does not divide 'ddr.bus_width_bits' = {}", d.device_width,
                        d.bus_width_bits),
            "  a rank is bus_width_bits / device_width devices side by side; use e.g. x8 devices on a 64-bit bus");
  if (d.burst_length < 2)
    in.fail(in.mark_of("ddr.burst_length"), fmt::format("'ddr.burst_length' = {} is below 2", d.burst_length),
            "  a double-data-rate burst moves two beats per clock; allowed: 2, 4, 8, 16, 32");
  if (d.columns < d.burst_length)
    in.fail(in.mark_of("ddr.columns"),
            fmt::format("'ddr.columns' = {} is smaller than one burst ('ddr.burst_length' = {})", d.columns,
                        d.burst_length),
            "  a row holds whole bursts; columns counts device columns (e.g. 1024 for DDR4 x8)");
}

/// Write-drain watermarks: missing keys resolve to 3/4 and 1/4 of the queue depth (stored as
/// 0, "derived", when the loader keeps unset watermarks: Loader::keep_unset_watermarks).
void read_write_watermarks(Loader& in, const Section& s, DdrConfig& d) {
  if (s.has("write_high_watermark"))
    d.write_high_watermark = in.get_int(s, "write_high_watermark", 1);
  else
    d.write_high_watermark = std::max(1, int(std::int64_t(d.queue_depth) * 3 / 4));  // 64-bit: depth may be INT_MAX
  if (s.has("write_low_watermark"))
    d.write_low_watermark = in.get_int(s, "write_low_watermark", 1);  // 0 means "derived" in the struct
  else
    d.write_low_watermark = std::min(d.queue_depth / 4, d.write_high_watermark - 1);
  if (d.write_high_watermark > d.queue_depth)
    in.fail(in.mark_of("ddr.write_high_watermark"),
            fmt::format("'ddr.write_high_watermark' = {} exceeds 'ddr.queue_depth' = {}", d.write_high_watermark,
                        d.queue_depth),
            fmt::format("  allowed: 1 to {} (omit it for 3/4 of the queue depth)", d.queue_depth));
  if (d.write_low_watermark >= d.write_high_watermark)
    in.fail(s.has("write_low_watermark") ? in.mark_of("ddr.write_low_watermark") : in.mark_of("ddr.write_high_watermark"),
            fmt::format("'ddr.write_low_watermark' = {} is not below 'ddr.write_high_watermark' = {}",
                        d.write_low_watermark, d.write_high_watermark),
            "  writes drain from the high mark down to the low mark; allowed: 1 <= low < high");
  if (!in.resolves_watermarks()) {
    if (!s.has("write_high_watermark")) d.write_high_watermark = 0;
    if (!s.has("write_low_watermark")) d.write_low_watermark = 0;
  }
}

}  // namespace

void load_ddr_section(Loader& in, const Section& top, DdrConfig& d) {
  Section s = in.open(top, "ddr");
  read_ddr_organisation(in, s, d);
  check_ddr_organisation(in, d);
  read_write_watermarks(in, s, d);
  load_ddr_timing_section(in, s, d);
}

}  // namespace npu::config_loader
