// Speed bins and burst lengths of each DDR standard (hw_config_rules.hpp, speed_bin_issue).
// A data rate the standard has no speed bin for, or a burst length it does not define, is
// not that standard: the timing tables, refresh and bank rules checked elsewhere assume it.
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "hw_config_rules.hpp"

namespace npu::detail {
namespace {

struct SpeedBins {
  const char* standard;
  const char* source;  ///< the JEDEC document (and revision) the row comes from
  int min_mtps, max_mtps;
  std::vector<int> burst_lengths;
  const char* burst_note;
};

// Data rates per pin in MT/s (for HBM, Gb/s per pin x 1000). Burst lengths in beats.
const std::vector<SpeedBins>& table() {
  static const std::vector<SpeedBins> t = {
      {"DDR3", "JESD79-3F (speed bins DDR3-800 to DDR3-2133)", 800, 2133, {8}, "BL8 (BC4 is a chopped BL8)"},
      {"DDR4", "JESD79-4B (speed bins DDR4-1600 to DDR4-3200)", 1600, 3200, {8}, "BL8 (BC4 is a chopped BL8)"},
      {"DDR5", "JESD79-5C (speed bins DDR5-3200 to DDR5-8800)", 3200, 8800, {16, 32}, "BL16 (BL32 on x4 parts)"},
      {"LPDDR3", "JESD209-3C (LPDDR3-333 to LPDDR3-2133)", 333, 2133, {8}, "BL8"},
      {"LPDDR4", "JESD209-4B (LPDDR4-533 to LPDDR4-4266)", 533, 4266, {16, 32}, "BL16 or BL32"},
      {"LPDDR4X", "JESD209-4-1 (LPDDR4X-533 to LPDDR4X-4266)", 533, 4266, {16, 32}, "BL16 or BL32"},
      {"LPDDR5", "JESD209-5B (LPDDR5-533 to LPDDR5X-8533)", 533, 8533, {16, 32}, "BL16 or BL32"},
      {"GDDR5", "JESD212C (GDDR5 up to 8 Gb/s per pin)", 1000, 8000, {8}, "BL8"},
      {"GDDR6", "JESD250C (GDDR6 up to 20 Gb/s per pin as shipped)", 8000, 20000, {16}, "BL16"},
      {"HBM", "JESD235 (HBM, 1 Gb/s per pin)", 500, 1000, {2, 4}, "BL2 or BL4"},
      {"HBM2", "JESD235A/B (HBM2, up to 2.4 Gb/s per pin)", 1000, 2400, {2, 4}, "BL2 or BL4"},
      {"HBM2E", "JESD235C/D (HBM2E, up to 3.6 Gb/s per pin)", 1000, 3600, {2, 4}, "BL2 or BL4"},
      {"HBM3", "JESD238 (HBM3, up to 6.4 Gb/s per pin)", 2000, 6400, {8}, "BL8"},
  };
  return t;
}

}  // namespace

std::optional<JedecIssue> speed_bin_issue(const DdrConfig& d) {
  const auto& t = table();
  const auto row = std::find_if(t.begin(), t.end(), [&](const SpeedBins& r) { return d.standard == r.standard; });
  if (row == t.end()) return std::nullopt;
  if (d.data_rate_mtps < row->min_mtps || d.data_rate_mtps > row->max_mtps)
    return JedecIssue{"ddr.data_rate_mtps",
                      fmt::format("'ddr.data_rate_mtps' = {} MT/s is outside the {} speed bins: {} to {} MT/s", d.data_rate_mtps,
                                  d.standard, row->min_mtps, row->max_mtps),
                      fmt::format("  source: {}; give a data rate of that range (e.g. {} for {}), or the standard "
                                  "the part follows",
                                  row->source, row->max_mtps, d.standard)};
  if (std::find(row->burst_lengths.begin(), row->burst_lengths.end(), d.burst_length) == row->burst_lengths.end())
    return JedecIssue{"ddr.burst_length",
                      fmt::format("'ddr.burst_length' = {} is not a {} burst length: {} defines {}", d.burst_length,
                                  d.standard, d.standard, row->burst_note),
                      fmt::format("  source: {}; set 'burst_length: {}' (and burst-dependent timings such as tCCD_S "
                                  ">= burst_length / 2 to match)",
                                  row->source, row->burst_lengths.front())};
  return std::nullopt;
}

}  // namespace npu::detail
