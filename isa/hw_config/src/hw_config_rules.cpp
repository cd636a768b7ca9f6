#include "hw_config_rules.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstring>

namespace npu::detail {

namespace {

const KeyLimit kLimits[] = {
    {"mac_array.rows", 65536,
     "2^16 PEs per side bounds every tile and byte count far inside 64 bits; the largest built arrays are 256 x 256 "
     "(TPU v1)"},
    {"mac_array.cols", 65536,
     "2^16 PEs per side bounds every tile and byte count far inside 64 bits; the largest built arrays are 256 x 256 "
     "(TPU v1)"},
    {"mac_array.macs_per_pe_per_cycle", 64, "a PE performs a few MACs per cycle (e.g. 2 or 4 int8 MACs in a wider PE)"},
    {"mac_array.gemv_max_m", 65536, "decode's GEMV has M = batch; batches above a few hundred are compute-bound GEMMs"},
    {"mac_array.weight_group", 65536, "weight-only quantisation groups are 32 to 256 weights along K (AWQ, GPTQ: 128)"},
    {"sram.banks", 1024, "an on-chip buffer has a few to a few hundred banks"},
    {"sram.bytes_per_cycle", 65536, "64 KiB per bank per cycle is far above any SRAM macro port"},
    {"sram.latency_cycles", 1000,
     "an on-chip SRAM access takes 1-3 core cycles; a longer latency only stretches simulated time, which the DDR "
     "model fills with a refresh every tREFI, so a run would take minutes"},
    {"act_unit.lanes", 65536, "a vector unit has tens to thousands of lanes"},
    {"act_unit.latency_cycles.*", 1000,
     "a vector op's pipeline is a few to tens of cycles; a longer latency only stretches simulated time (refreshes "
     "every tREFI), so a run would take minutes"},
    {"dma.max_outstanding", 4096,
     "the DMA tracks each request in flight, per DDR channel; real engines track 16 to 256 (leave the key out to "
     "size it by Little's law, docs/timing.md)"},
    {"dma.requests_per_cycle", 64,
     "a DMA front end issues about one request per DDR channel per cycle (ddr.channels is at most 64); leave the key "
     "out for ddr.channels"},
    {"ddr.channels", 64, "a memory system has 1 to 32 channels (HBM3: 16 channels x 2 pseudo-channels)"},
    {"ddr.ranks", 16, "a channel has 1 to 8 ranks (3DS/LRDIMM included)"},
    {"ddr.bank_groups", 16, "DRAMs have 1 to 8 bank groups (DDR5: 8)"},
    {"ddr.banks_per_group", 64, "DRAMs have 4 to 32 banks per group or die"},
    {"ddr.rows", 1 << 20, "DRAM banks have up to 2^18 rows (DDR5 32 Gb); 2^20 leaves headroom"},
    {"ddr.columns", 1 << 16, "DRAM rows have up to 2^11 columns; 2^16 leaves headroom"},
    {"ddr.device_width", 1024, "devices are x4 to x128 (an HBM channel); 1024 is an HBM stack's whole bus"},
    {"ddr.bus_width_bits", 4096, "a channel is 16 to 128 bits wide (an HBM stack 1024)"},
    {"ddr.burst_length", 64, "JEDEC bursts are 2 to 32 beats"},
    {"ddr.queue_depth", kMaxDdrQueueDepth,
     "the FR-FCFS scheduler scans the whole queue for every command, so the cost grows with the depth; real "
     "controllers hold 32 to 128 entries per channel"},
    {"ddr.write_high_watermark", 4096, "at most ddr.queue_depth, itself at most 4096"},
    {"ddr.write_low_watermark", 4096, "below ddr.write_high_watermark, itself at most 4096"},
    {"ddr.timing.*", 1000000,
     "JEDEC timings are at most tens of thousands of tCK (tREFI 7.8 us = 24960 tCK at 6400 MT/s); larger values "
     "stretch simulated time and runs would take minutes"},
};

/// JESD79-4 (DDR4) tFAW minimum in ns by page size, for the speed bins 1600 ... 3200
/// (Table "Timing Parameters by Speed Bin", tFAW_1/2K, tFAW_1K, tFAW_2K), and the nCK floor.
struct FawRow {
  int mtps;
  double half_k_ns, one_k_ns, two_k_ns;
};
constexpr FawRow kDdr4Faw[] = {{1600, 20, 25, 35},     {1866, 17, 23, 30}, {2133, 15, 21, 30}, {2400, 13, 21, 30},
                               {2666, 12, 21, 30},     {2933, 10.875, 21, 30}, {3200, 10, 21, 30}};

/// JESD79-4 section 13.5 rounding: nCK = truncate((t_ps x 1000 / tCK_ps + 974) / 1000),
/// i.e. ceil with a 2.6 % guard band.
int jedec_nck(double t_ns, double tck_ns) {
  return int(std::floor((t_ns * 1000.0 / tck_ns + 974.0) / 1000.0));
}

}  // namespace

const KeyLimit* key_limit(const std::string& key_path) {
  for (const KeyLimit& l : kLimits) {
    const std::size_t n = std::strlen(l.key);
    if (l.key[n - 1] == '*') {
      if (key_path.compare(0, n - 1, l.key, n - 1) == 0) return &l;
    } else if (key_path == l.key) {
      return &l;
    }
  }
  return nullptr;
}

std::optional<JedecIssue> jedec_issue(const DdrConfig& d) {
  const std::string& std_ = d.standard;
  if ((std_ == "DDR3" || std_ == "LPDDR3" || std_ == "LPDDR4" || std_ == "LPDDR4X") && d.bank_groups != 1)
    return JedecIssue{"ddr.bank_groups",
                      fmt::format("'ddr.bank_groups' = {} but {} has no bank groups", d.bank_groups, std_),
                      fmt::format("  {} devices have 8 independent banks (JESD79-3, JESD209-3, JESD209-4); set "
                                  "'bank_groups: 1' and 'banks_per_group: 8', and tCCD_L = tCCD_S, tRRD_L = tRRD_S, "
                                  "tWTR_L = tWTR_S",
                                  std_)};
  // Largest die a standard defines: JESD79-3 (DDR3) 8 Gb, JESD79-4 (DDR4) 16 Gb, JESD79-5
  // (DDR5) 64 Gb. Die density = banks x rows x columns x device width bits.
  int max_gbit = 0;
  if (std_ == "DDR3") max_gbit = 8;
  if (std_ == "DDR4") max_gbit = 16;
  if (std_ == "DDR5") max_gbit = 64;
  if (max_gbit > 0) {
    const unsigned __int128 bits = (unsigned __int128)d.bank_groups * unsigned(d.banks_per_group) *
                                   (unsigned __int128)d.rows * (unsigned __int128)d.columns * unsigned(d.device_width);
    const unsigned __int128 max_bits = (unsigned __int128)max_gbit << 30;
    if (bits > max_bits) {
      const int devices = d.bus_width_bits / d.device_width;
      const double die_gbit = double(bits) / double(1ull << 30);
      return JedecIssue{
          "ddr.rows",
          fmt::format("a {} die of bank_groups x banks_per_group x rows x columns x device_width = {} x {} x {} x {} "
                      "x {} bits = {:g} Gb is larger than the largest {} die, {} Gb",
                      std_, d.bank_groups, d.banks_per_group, d.rows, d.columns, d.device_width, die_gbit, std_,
                      max_gbit),
          fmt::format("  {} defines dies up to {} Gb, so a channel holds at most ranks x devices x {} Gb = {} x {} x "
                      "{} Gb = {} GiB; check 'ddr.rows' and 'ddr.columns' against the datasheet (e.g. DDR4 8 Gb x8: "
                      "4 x 4 banks, 65536 rows, 1024 columns)",
                      std_ == "DDR3" ? "JESD79-3" : std_ == "DDR4" ? "JESD79-4" : "JESD79-5", max_gbit, max_gbit,
                      d.ranks, devices, max_gbit, std::uint64_t(d.ranks) * std::uint64_t(devices) * max_gbit / 8)};
    }
  }
  const DdrTimingCk& t = d.timing;
  if (t.t_faw < 4 * t.t_rrd_s)
    return JedecIssue{"ddr.timing.tFAW",
                      fmt::format("tFAW = {} tCK is below 4 x tRRD_S = 4 x {} = {} tCK: the four-activate window "
                                  "could never bind (four activates already take 4 x tRRD_S)",
                                  t.t_faw, t.t_rrd_s, 4 * t.t_rrd_s),
                      fmt::format("  every JEDEC speed bin has tFAW >= 4 x tRRD_S (e.g. DDR4-3200 x8: tFAW 34, "
                                  "tRRD_S 4); check both against the datasheet (set tFAW >= {})",
                                  4 * t.t_rrd_s)};
  // JESD79-4 speed bins run from DDR4-1600 to DDR4-3200; outside them there is no JEDEC
  // figure to check against.
  if (std_ == "DDR4" && d.data_rate_mtps >= 1600 && d.data_rate_mtps <= 3200) {
    const FawRow* row = &kDdr4Faw[0];
    for (const FawRow& r : kDdr4Faw)
      if (r.mtps <= d.data_rate_mtps) row = &r;
    const int page_bytes_x = d.device_width;  // page = 1024 columns x width: x4 1/2 KB, x8 1 KB, x16 2 KB
    double ns = 0;
    int floor_nck = 0;
    const char* page = "";
    if (page_bytes_x == 4) ns = row->half_k_ns, floor_nck = 16, page = "1/2 KB (x4)";
    if (page_bytes_x == 8) ns = row->one_k_ns, floor_nck = 20, page = "1 KB (x8)";
    if (page_bytes_x == 16) ns = row->two_k_ns, floor_nck = 28, page = "2 KB (x16)";
    if (ns > 0) {
      const int min_nck = std::max(floor_nck, jedec_nck(ns, d.tck_ns()));
      if (t.t_faw < min_nck)
        return JedecIssue{
            "ddr.timing.tFAW",
            fmt::format("tFAW = {} tCK is below the DDR4 minimum for a {} page at {} MT/s: max({} nCK, {:g} ns) = "
                        "{} tCK",
                        t.t_faw, page, d.data_rate_mtps, floor_nck, ns, min_nck),
            fmt::format("  JESD79-4, timing parameters by speed bin (DDR4-{}), rounded as its section 13.5 "
                        "prescribes; set tFAW >= {}",
                        row->mtps, min_nck)};
    }
  }
  return std::nullopt;
}

}  // namespace npu::detail
