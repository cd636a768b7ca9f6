// Config points of a sweep, resolved one at a time (sweep_configs.hpp, docs/sweep.md "Size
// limit and planning progress").
#include "npu/sim/experiment/sweep_configs.hpp"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <unordered_map>

#include <fmt/format.h>

#include "npu/base/config_error.hpp"
#include "npu/base/safe_file_name.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "npu/hw_config/hw_config_node.hpp"
#include "npu/sim/experiment/cell_key.hpp"
#include "npu/sim/experiment/config_sections.hpp"

namespace npu::sim {

namespace {

/// "a-b.c" safe for file names: letters, digits, '-', '_', '.'; anything else becomes '_'.
std::string safe(const std::string& s) {
  std::string out;
  for (char c : s)
    if (c != ' ') out += c;
  return npu::safe_file_name(out);
}

/// hw_config_to_yaml(cfg) with npu.name "-" (the same config under another name is still the
/// same config), from `yaml` = hw_config_to_yaml(cfg): its first two lines are "npu:" and the
/// name, so only they change.
std::string without_name(const std::string& yaml, HwConfig& cfg) {
  const std::string head = "npu:\n  name: ";
  const std::size_t eol = yaml.find('\n', head.size());
  if (yaml.compare(0, head.size(), head) == 0 && eol != std::string::npos)
    return head + "\"-\"" + yaml.substr(eol);
  cfg.npu.name = "-";
  return hw_config_to_yaml(cfg);
}

/// The loader's message for an invalid point as one summary line: its own line:col (into
/// generated YAML the user does not have) dropped, lines "; "-joined.
std::string flat_message(const std::string& what, const std::string& name) {
  std::string msg = what;
  if (msg.rfind(name + ":", 0) == 0 && msg.find("error: ") != std::string::npos)
    msg = msg.substr(msg.find("error: ") + 7);
  std::string flat, line;
  std::istringstream lines(msg);
  while (std::getline(lines, line)) {
    const auto b = line.find_first_not_of(' ');
    if (b != std::string::npos) flat += (flat.empty() ? "" : "; ") + line.substr(b);
  }
  return flat;
}

[[noreturn]] void same_config(const SweepSpec& spec, const std::string& first, const std::string& second) {
  throw ConfigError(fmt::format("{}: error: config cells '{}' and '{}' are the same config\n  an axis lists one "
                                "value twice in different forms (e.g. 1MiB and 1048576); give each once",
                                spec.source, first, second));
}

}  // namespace

// One document edited in place for every config point (the same keys are set each time): no
// copy, print and re-parse per point.
struct ConfigSpace::Doc {
  YAML::Node doc;
  std::map<std::string, int> last_count;  // axis label -> paths sharing it
  std::unique_ptr<SectionedConfigLoad> sections;  // made at the first resolve
};

ConfigSpace::ConfigSpace(const SweepSpec& spec) : spec_(spec), count_(spec.config_count()), doc_(std::make_unique<Doc>()) {
  std::ifstream in(spec.base, std::ios::binary);
  std::ostringstream base_text;
  base_text << in.rdbuf();
  doc_->doc = YAML::Load(base_text.str());  // loaded once already: well-formed
  for (const auto& [path, value] : spec.set) set_yaml_path(doc_->doc, path, value);
  for (const auto& p : spec.axis_paths()) ++doc_->last_count[p.substr(p.rfind('.') + 1)];
  for (const auto& [path, value] : spec.set) ++doc_->last_count[path.substr(path.rfind('.') + 1)];
}

ConfigSpace::~ConfigSpace() = default;

std::vector<std::pair<std::string, std::string>> ConfigSpace::axis_values(std::size_t index) const {
  std::vector<std::size_t> pick(spec_.axes.size());
  for (std::size_t a = spec_.axes.size(); a-- > 0;) {  // the last axis varies fastest
    pick[a] = index % spec_.axes[a].values.size();
    index /= spec_.axes[a].values.size();
  }
  std::vector<std::pair<std::string, std::string>> out;
  for (std::size_t a = 0; a < spec_.axes.size(); ++a)
    for (std::size_t p = 0; p < spec_.axes[a].paths.size(); ++p)
      out.emplace_back(spec_.axes[a].paths[p], spec_.axes[a].values[pick[a]][p]);
  return out;
}

std::string ConfigSpace::base_name_of(std::size_t index) const {
  // Label of each path: its last component, or the whole path when two keys of `set` and the
  // axes share the last component (ddr.rows and mac_array.rows). The `set` values come first:
  // two sweeps differing only in one would otherwise name their configs alike.
  std::string name = spec_.base_name;
  const auto add = [&](const std::string& path, const std::string& value) {
    const std::string last = path.substr(path.rfind('.') + 1);
    name += "__" + safe(doc_->last_count.at(last) > 1 ? path : last) + "-" + safe(value);
  };
  for (const auto& [path, value] : spec_.set) add(path, value);
  for (const auto& [path, value] : axis_values(index)) add(path, value);
  if (name.size() > 120) name = spec_.base_name + fmt::format("__cell{}", index);
  return name;
}

ConfigCell ConfigSpace::resolve(std::size_t index, const std::string& hw_name) {
  ConfigCell cell;
  cell.hw_name = hw_name;
  cell.axis_values = axis_values(index);
  if (!doc_->sections) {  // every path set once: the document has its final shape
    for (const auto& [path, value] : cell.axis_values) set_yaml_path(doc_->doc, path, value);
    set_yaml_path(doc_->doc, "npu.name", hw_name);
    doc_->sections = std::make_unique<SectionedConfigLoad>(doc_->doc, spec_.axis_paths());
  }
  // A valid point from the sections its axes are in (each read once per combination of their
  // values); an invalid one from the whole document, for the loader's message.
  if (std::optional<HwConfig> cfg = doc_->sections->load(cell.axis_values, hw_name)) {
    cell.config_yaml = hw_config_to_yaml(*cfg);
    cell.identity_yaml = without_name(cell.config_yaml, *cfg);
    return cell;
  }
  for (const auto& [path, value] : cell.axis_values) set_yaml_path(doc_->doc, path, value);
  set_yaml_path(doc_->doc, "npu.name", hw_name);
  std::optional<HwConfig> cfg;
  try {
    cfg = parse_hw_config_node(doc_->doc, hw_name);
  } catch (const ConfigError& e) {
    YAML::Emitter out;
    out << doc_->doc;
    cell.invalid = flat_message(e.what(), hw_name);
    cell.config_yaml = std::string(out.c_str()) + "\n";
    cell.identity_yaml = cell.config_yaml;
    return cell;
  }
  cell.config_yaml = hw_config_to_yaml(*cfg);
  cell.identity_yaml = without_name(cell.config_yaml, *cfg);
  return cell;
}

std::vector<ConfigCell> plan_configs(const SweepSpec& spec, const PlanProgress& progress) {
  ConfigSpace space(spec);
  const std::size_t n = space.size();
  std::vector<ConfigCell> cells;
  std::set<std::string> names;
  std::map<std::string, std::string> seen_config;  // resolved YAML (name blanked) -> hw name
  for (std::size_t index = 0; index < n; ++index) {
    if (progress && index % 256 == 0) progress(index, n);
    std::string name = space.base_name_of(index);
    while (!names.insert(name).second) name += "_";
    ConfigCell cell = space.resolve(index, name);
    if (cell.invalid.empty()) {
      auto [it, fresh] = seen_config.emplace(cell.identity_yaml, name);
      if (!fresh) same_config(spec, it->second, name);
    }
    cells.push_back(std::move(cell));
  }
  if (progress) progress(n, n);
  return cells;
}

std::vector<ConfigPoint> plan_config_points(const SweepSpec& spec, const PlanProgress& progress) {
  ConfigSpace space(spec);
  const std::size_t n = space.size();
  std::vector<ConfigPoint> points;
  points.reserve(n);
  // 64-bit hashes of the names and identities (their key states) taken so far -> their
  // points; a hash hit is confirmed on the text (the name held, the identity resolved again),
  // so the result is exactly plan_configs' whatever the hashes do.
  std::unordered_multimap<std::uint64_t, std::size_t> names, identities;
  auto name_taken = [&](const std::string& name) {
    const auto [b, e] = names.equal_range(fnv1a64(name));
    for (auto it = b; it != e; ++it)
      if (points[it->second].hw_name == name) return true;
    return false;
  };
  for (std::size_t index = 0; index < n; ++index) {
    if (progress && index % 256 == 0) progress(index, n);
    std::string name = space.base_name_of(index);
    while (name_taken(name)) name += "_";
    const ConfigCell cell = space.resolve(index, name);
    const std::uint64_t key_state = cell_key_config_state(cell.identity_yaml);  // hashes the identity
    if (cell.invalid.empty()) {
      const auto [b, e] = identities.equal_range(key_state);
      for (auto it = b; it != e; ++it)
        if (space.resolve(it->second, points[it->second].hw_name).identity_yaml == cell.identity_yaml)
          same_config(spec, points[it->second].hw_name, name);
      identities.emplace(key_state, index);
    }
    names.emplace(fnv1a64(name), index);
    points.push_back({name, key_state, cell.invalid});
  }
  if (progress) progress(n, n);
  return points;
}

}  // namespace npu::sim
