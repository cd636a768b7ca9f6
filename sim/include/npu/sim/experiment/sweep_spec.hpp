// The sweep spec (`npu sweep SPEC.yaml`): a base hardware config, axes over its keys by
// dotted path (alone or zipped), models, strategies and run options. Format and every
// error: docs/sweep.md.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace npu::sim {

/// One axis of the design space: one config key, or several keys varied together (zip).
/// values[i][p] is the i-th value of paths[p], as written in the spec.
struct SweepAxis {
  std::vector<std::string> paths;
  std::vector<std::vector<std::string>> values;
};

struct SweepSpec {
  std::string source;     ///< the spec file (messages)
  std::string base;       ///< base config path, as the tool opens it
  std::string base_name;  ///< preset name or file stem: the start of every cell's hw name
  std::vector<std::pair<std::string, std::string>> set;  ///< fixed key changes for every cell
  std::vector<SweepAxis> axes;         ///< `axes` entries in file order, then `zip` groups
  std::vector<std::string> models;     ///< zoo names or .onnx paths (as the tool opens them)
  std::vector<std::string> strategies; ///< built-in names or strategy YAML paths
  std::vector<std::string> traces;     ///< options.trace: subset of ddr, timeline, vcd
  std::vector<std::string> input_shapes;  ///< options.input_shape: NAME=DIMS
  std::int64_t dynamic_size = 0;       ///< options.dynamic_size (0: none)
  bool npu_only = false;               ///< options.npu_only

  /// Every axis path in column order (a zip contributes each of its paths).
  std::vector<std::string> axis_paths() const;
  /// Number of config cells: the product of the axes' lengths (1 without axes).
  std::size_t config_count() const;
};

/// Reads and checks a spec file. Relative paths in it (base, models, strategy files) are
/// relative to the spec file's folder; `base` may also be a preset name (configs/<name>.yaml
/// of the source tree). Throws npu::ConfigError "SPEC:LINE:COL: error: ..." plus the fix for
/// malformed YAML, unknown or missing keys, an axis path that is not a config key (naming
/// the axis, with the closest key), empty or repeated axis values, zipped lists of different
/// lengths, a path given twice, unknown models or strategies and bad options.
SweepSpec load_sweep_spec(const std::string& path);

/// As load_sweep_spec on text; `source` names it in messages and `base_dir` anchors paths.
SweepSpec parse_sweep_spec(const std::string& text, const std::string& source, const std::string& base_dir);

/// One point of the config space.
struct ConfigCell {
  std::string hw_name;  ///< "<base>__<key>-<value>..." (file-name safe), also its npu.name
  std::vector<std::pair<std::string, std::string>> axis_values;  ///< path -> value as written
  std::string config_yaml;  ///< resolved (hw_config_to_yaml) when valid, else the substituted YAML
  std::string identity_yaml;  ///< the config of the cell key: resolved with npu.name "-" (valid), else config_yaml
  std::string invalid;      ///< why the config fails validation (empty when valid)
};

/// Called during planning with (configs planned, configs in all), about every 256 configs.
using PlanProgress = std::function<void(std::size_t, std::size_t)>;

/// The config cells in order: the cartesian product of the axes, the first axis varying
/// slowest. Each is the base YAML with `set` and the axis values substituted (yaml-cpp) and
/// npu.name set to hw_name, then validated by the config loader. Throws ConfigError when
/// two cells resolve to the same config (e.g. 1MiB and 1048576 on one axis).
std::vector<ConfigCell> plan_configs(const SweepSpec& spec, const PlanProgress& progress = {});


}  // namespace npu::sim
