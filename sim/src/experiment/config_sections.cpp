// A sweep's config points loaded section by section (config_sections.hpp).
#include "npu/sim/experiment/config_sections.hpp"

#include <algorithm>
#include <sstream>
#include <unordered_map>

#include "npu/base/config_error.hpp"
#include "npu/hw_config/hw_config_node.hpp"

namespace npu::sim {

namespace {

/// A section's configs are kept for at most this many combinations of its values (about 1 KB
/// each); past it the cache starts again (a sweep with more combinations in one section reads
/// that section again, as before).
constexpr std::size_t kMaxSeen = 4096;

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  std::stringstream ss(path);
  std::string part;
  while (std::getline(ss, part, '.')) parts.push_back(part);
  return parts;
}

/// Whether `path` names a scalar under maps in `root` (nothing is created).
bool is_scalar_at(const YAML::Node& root, const std::string& path) {
  YAML::Node cur = root;
  for (const auto& part : split_path(path)) {
    if (!cur.IsDefined() || !cur.IsMap()) return false;
    const YAML::Node& c = cur;
    cur.reset(c[part]);  // rebind, not assign (yaml-cpp nodes are references)
  }
  return cur.IsDefined() && cur.IsScalar();
}

}  // namespace

void set_yaml_path(YAML::Node root, const std::string& path, const std::string& value) {
  YAML::Node cur = root;
  const std::vector<std::string> parts = split_path(path);
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    YAML::Node next = cur[parts[i]];
    if (!next.IsMap()) next = YAML::Node(YAML::NodeType::Map);  // absent (e.g. no energy section)
    cur.reset(next);  // rebind, not assign (yaml-cpp nodes are references)
  }
  cur[parts.back()] = value;
}

// One section a path (or npu.name) is in: its paths, and its config per combination of their
// values (nullopt: the section does not load with them).
struct SectionedConfigLoad::Part {
  std::size_t section = 0;
  std::vector<std::size_t> slots;  // indices into paths_
  bool has_name = false;           // the npu section: npu.name changes at every load, never cached
  std::unordered_map<std::string, std::optional<HwConfig>> seen;
};

SectionedConfigLoad::SectionedConfigLoad(YAML::Node doc, std::vector<std::string> paths)
    : doc_(doc), paths_(std::move(paths)) {
  const std::vector<std::string>& names = hw_config_top_sections();
  std::vector<std::unique_ptr<Part>> by_section(names.size());
  auto part = [&](std::size_t s) -> Part& {
    if (!by_section[s]) by_section[s] = std::make_unique<Part>();
    by_section[s]->section = s;
    return *by_section[s];
  };
  const auto npu = std::size_t(std::find(names.begin(), names.end(), "npu") - names.begin());
  part(npu).has_name = true;
  for (std::size_t i = 0; i < paths_.size(); ++i) {
    const auto s = std::size_t(std::find(names.begin(), names.end(), split_path(paths_[i]).front()) - names.begin());
    if (s == names.size() || !is_scalar_at(doc_, paths_[i])) return;
    part(s).slots.push_back(i);
  }
  try {
    check_hw_config_top(doc_, "-");
    for (std::size_t s = 0; s < names.size(); ++s)
      if (!by_section[s]) parse_hw_config_section(doc_, s, "-", base_);
  } catch (const ConfigError&) {
    return;  // a constant section is invalid: every point is, with the loader's own message
  }
  for (auto& p : by_section)
    if (p) parts_.push_back(std::move(p));
  usable_ = true;
}

SectionedConfigLoad::~SectionedConfigLoad() = default;

const HwConfig* SectionedConfigLoad::section_config(Part& part,
                                                    const std::vector<std::pair<std::string, std::string>>& values,
                                                    const std::string& name) {
  auto read = [&](HwConfig& into) {
    for (std::size_t slot : part.slots) set_yaml_path(doc_, paths_[slot], values[slot].second);
    if (part.has_name) set_yaml_path(doc_, "npu.name", name);
    copy_hw_config_section(part.section, HwConfig{}, into);  // the reader fills a fresh member
    try {
      parse_hw_config_section(doc_, part.section, name, into);
      return true;
    } catch (const ConfigError&) {
      return false;
    }
  };
  if (part.has_name) return read(scratch_) ? &scratch_ : nullptr;
  std::string key;  // each value with its length: no two combinations give the same key
  for (std::size_t slot : part.slots) key += std::to_string(values[slot].second.size()) + ':' + values[slot].second;
  auto it = part.seen.find(key);
  if (it == part.seen.end()) {
    if (part.seen.size() >= kMaxSeen) part.seen.clear();
    std::optional<HwConfig> cfg(std::in_place);
    if (!read(*cfg)) cfg.reset();
    it = part.seen.emplace(std::move(key), std::move(cfg)).first;
  }
  return it->second ? &*it->second : nullptr;
}

std::optional<HwConfig> SectionedConfigLoad::load(const std::vector<std::pair<std::string, std::string>>& values,
                                                  const std::string& name) {
  if (!usable_ || values.size() != paths_.size()) return std::nullopt;
  HwConfig cfg = base_;
  for (auto& part : parts_) {
    const HwConfig* from = section_config(*part, values, name);
    if (!from) return std::nullopt;
    copy_hw_config_section(part->section, *from, cfg);
  }
  cfg.source = name;
  try {
    check_hw_config_cross_sections(cfg, name);
  } catch (const ConfigError&) {
    return std::nullopt;
  }
  return cfg;
}

}  // namespace npu::sim
