// The config points of a sweep, planned one at a time (docs/sweep.md "Size limit and planning
// progress"): a 10^6-point sweep used to hold every point's resolved YAML twice (~6 GB);
// ConfigSpace resolves any point on demand from one YAML document edited in place, and
// plan_config_points keeps only what the plan needs per point (its name, the hash state of
// its key and why it is invalid), about 100 bytes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "npu/sim/experiment/sweep_spec.hpp"

namespace npu::sim {

/// The config space of a spec: the base config with `set` applied, and the axes.
class ConfigSpace {
 public:
  /// Loads the spec's base config once (the spec loader has checked that it parses).
  explicit ConfigSpace(const SweepSpec& spec);
  ~ConfigSpace();
  ConfigSpace(const ConfigSpace&) = delete;
  ConfigSpace& operator=(const ConfigSpace&) = delete;

  /// Number of points: spec.config_count().
  std::size_t size() const { return count_; }
  /// Point `index`'s axis values (path -> value as written), the first axis varying slowest.
  std::vector<std::pair<std::string, std::string>> axis_values(std::size_t index) const;
  /// Point `index`'s hw name before de-duplication: "<base>__<label>-<value>...", or
  /// "<base>__cell<index>" when longer than 120 characters (file-name safe).
  std::string base_name_of(std::size_t index) const;
  /// Point `index` named `hw_name`: the base with its axis values and npu.name substituted,
  /// validated by the config loader (config_yaml and identity_yaml resolved), or the
  /// substituted YAML and the loader's message in `invalid`. A valid point is loaded from its
  /// sections (SectionedConfigLoad: each read once per combination of its axes' values), an
  /// invalid one again as a whole document, for the loader's own message.
  ConfigCell resolve(std::size_t index, const std::string& hw_name);

 private:
  const SweepSpec& spec_;
  std::size_t count_ = 0;
  struct Doc;
  std::unique_ptr<Doc> doc_;
};

/// What a sweep plan keeps of one config point.
struct ConfigPoint {
  std::string hw_name;           ///< de-duplicated name (ConfigCell::hw_name)
  std::uint64_t key_state = 0;   ///< cell_key_config_state(identity_yaml)
  std::string invalid;           ///< why the config fails validation (empty when valid)
};

/// Every config point in order, as plan_configs names and checks them (same names, same
/// duplicate-config error), keeping ConfigPoint only; `progress` as for plan_configs.
/// Duplicate configs are found by each identity's key state (64-bit FNV-1a) and confirmed by
/// resolving the earlier point again, so no point's YAML is held.
std::vector<ConfigPoint> plan_config_points(const SweepSpec& spec, const PlanProgress& progress = {});

}  // namespace npu::sim
