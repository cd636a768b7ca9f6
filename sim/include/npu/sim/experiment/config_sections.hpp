// Loading the many config points of a sweep section by section (docs/sweep.md "Size limit and
// planning progress"): the points differ only in a few keys, so each top-level section is read
// once when no axis is in it, and once per combination of its axes' values otherwise, instead
// of every section at every point.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "npu/hw_config/hw_config.hpp"

namespace npu::sim {

/// The configs of one YAML document whose values at `paths` (and npu.name) change from load
/// to load: load(values, name) == parse_hw_config_node(doc with values[i] at paths[i] and
/// npu.name = name, name) whenever that config is valid.
class SectionedConfigLoad {
 public:
  /// `doc` (shared, as yaml-cpp nodes are: load() edits it) with every path of `paths` set
  /// once already; `paths` are dotted keys ("sram.capacity"), in the order load() gets
  /// their values.
  SectionedConfigLoad(YAML::Node doc, std::vector<std::string> paths);
  ~SectionedConfigLoad();
  SectionedConfigLoad(const SectionedConfigLoad&) = delete;
  SectionedConfigLoad& operator=(const SectionedConfigLoad&) = delete;

  /// Whether load() can return configs: false when a path is not a scalar inside a section,
  /// or a section no path changes (or the top-level map) does not load; every load() then
  /// returns nullopt.
  bool usable() const { return usable_; }

  /// The config with `values[i]` (path_values[i].second) at paths[i] and npu.name = `name`
  /// (also its source), or nullopt when that config is invalid (or !usable()): the caller
  /// then loads the whole document with parse_hw_config_node, for the config or the message.
  /// Sets in the document only the values of sections it reads again, so the caller must set
  /// every value itself before reading the document.
  std::optional<HwConfig> load(const std::vector<std::pair<std::string, std::string>>& path_values,
                               const std::string& name);

 private:
  struct Part;
  const HwConfig* section_config(Part& part, const std::vector<std::pair<std::string, std::string>>& path_values,
                                 const std::string& name);

  YAML::Node doc_;
  std::vector<std::string> paths_;
  std::vector<std::unique_ptr<Part>> parts_;  // sections a path (or npu.name) is in, loader order
  HwConfig base_;                             // the other sections, read once
  HwConfig scratch_;                          // the npu section, read at every load (npu.name)
  bool usable_ = false;
};

/// Sets the scalar at dotted `path` in `root`, creating maps on the way.
void set_yaml_path(YAML::Node root, const std::string& path, const std::string& value);

}  // namespace npu::sim
