// Bounds and standard rules of hardware configs beyond "is a number of the right type",
// kept out of the loader (load/) so the table reads in one place. Every bound has a
// reason that the error message states; docs/config.md lists them ("Limits").
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "npu/hw_config/hw_config.hpp"

namespace npu::detail {

/// The largest value a key accepts and why. Keys are dotted paths; "ddr.timing.*" and
/// "act_unit.latency_cycles.*" cover every key of those maps.
struct KeyLimit {
  const char* key;
  std::int64_t max;
  const char* reason;
};

/// The limit of `key_path`, or nullptr when the key has none beyond its type.
const KeyLimit* key_limit(const std::string& key_path);

/// A DDR organisation or timing set a JEDEC standard forbids, or that makes a constraint
/// dead (never binding). `key` is the dotted key the message points at.
struct JedecIssue {
  std::string key;
  std::string what;
  std::string hint;
};

/// Checks, in order: bank groups on a standard without them (DDR3, LPDDR3, LPDDR4/4X);
/// device density above the standard's largest die (DDR3 8 Gb, DDR4 16 Gb, DDR5 64 Gb);
/// tFAW below 4 x tRRD_S (the four-activate window could never bind); DDR4 tFAW below the
/// JESD79-4 minimum of its page size (x4 1/2 KB, x8 1 KB, x16 2 KB) and speed bin.
std::optional<JedecIssue> jedec_issue(const DdrConfig& d);

/// A data rate outside the speed bins of the config's standard, or a burst length the
/// standard does not define, naming the JEDEC document (ddr_speed_bins.cpp has the table:
/// e.g. DDR4 1600 to 3200 MT/s with BL8, JESD79-4; HBM2 BL2 or BL4, JESD235).
std::optional<JedecIssue> speed_bin_issue(const DdrConfig& d);

}  // namespace npu::detail
