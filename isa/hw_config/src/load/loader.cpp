// The loader's machinery: opening a map against the schema, and where each value was.
#include "load/loader.hpp"

#include <algorithm>
#include <stdexcept>

#include "npu/base/closest_name.hpp"
#include "npu/base/user_text.hpp"
#include "npu/base/yaml_file.hpp"

namespace npu::config_loader {

std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    out += items[i];
  }
  return out;
}

std::string choice_hint(const std::string& word, const std::vector<std::string>& allowed) {
  if (auto c = closest_name(word, allowed)) return fmt::format("  did you mean '{}'? (allowed: {})", *c, join(allowed));
  return fmt::format("  allowed: {}", join(allowed));
}

std::string describe(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Null: return "an empty value";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Map: return "a map";
    case YAML::NodeType::Scalar: return fmt::format("'{}'", echo(n.Scalar()));
    default: return "nothing";
  }
}

bool is_pow2(std::uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

void Loader::fail(const YAML::Mark& m, const std::string& what, const std::string& hint) const {
  throw_yaml_error(source_, m, what, hint);
}

const YAML::Mark& Loader::mark_of(const std::string& key_path) const {
  static const YAML::Mark none = YAML::Mark::null_mark();
  auto it = marks_.find(key_path);
  return it == marks_.end() ? none : it->second;
}

/// Checks that `node` is a map whose keys are all in required + optional, each once, and
/// that every required key is present. Unknown keys are reported before missing ones: a
/// misspelt key is both, and the suggestion is the more useful message.
Section Loader::open_node(const YAML::Node& node, const std::string& path,
                          const std::vector<std::string>& required, const std::vector<std::string>& optional,
                          const YAML::Mark& key_mark) {
  const YAML::Mark where = node.IsNull() || node.Mark().is_null() ? key_mark : node.Mark();
  Section s;
  s.path = path;
  s.node = node;
  std::vector<std::string> allowed = required;
  allowed.insert(allowed.end(), optional.begin(), optional.end());
  if (!node.IsMap()) {
    fail(where,
         path.empty() ? fmt::format("the config must be a map of sections, got {}", describe(node))
                      : fmt::format("{} must be a map of keys, got {}", s.name(), describe(node)),
         fmt::format("  allowed keys: {}", join(allowed)));
  }
  for (auto it = node.begin(); it != node.end(); ++it) {
    const YAML::Node k = it->first;  // a copy: the iterator yields a temporary pair
    if (!k.IsScalar()) fail(k.Mark(), fmt::format("a key in {} is {}, not a name", s.name(), describe(k)),
                            fmt::format("  allowed keys: {}", join(allowed)));
    const std::string key = k.Scalar();
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      fail(k.Mark(), fmt::format("unknown key '{}' in {}", echo(key), s.name()),
           allowed.empty() ? std::string("  this section takes no keys") : choice_hint(key, allowed));
    }
    if (s.has(key)) {
      const YAML::Mark& first = s.key_marks[key];
      fail(k.Mark(), fmt::format("duplicate key '{}' in {}", echo(key), s.name()),
           fmt::format("  first given at line {}; keep one of them", first.line + 1));
    }
    s.values[key] = it->second;
    s.key_marks[key] = k.Mark();
  }
  for (const auto& key : required) {
    if (!s.has(key)) {
      fail(where, fmt::format("missing key '{}' in {}", key, s.name()),
           fmt::format("  required keys: {}{}", join(required),
                       optional.empty() ? "" : fmt::format("; optional: {}", join(optional))));
    }
  }
  return s;
}

Section Loader::open(const YAML::Node& root, const std::string& path) {
  const HwConfigSection& sec = schema_section(path);
  return open_node(root, path, sec.required, sec.optional, YAML::Mark());
}

Section Loader::open(const Section& parent, const std::string& key) {
  const HwConfigSection& sec = schema_section(parent.key_path(key));
  return open_node(parent.values.at(key), parent.key_path(key), sec.required, sec.optional,
                   parent.key_marks.at(key));
}

const HwConfigSection& Loader::schema_section(const std::string& path) {
  for (const auto& sec : hw_config_schema())
    if (sec.path == path) return sec;
  throw std::logic_error("hw_config_schema() has no section '" + path + "'");
}

const YAML::Node& Loader::value(const Section& s, const std::string& key) {
  const YAML::Node& v = s.values.at(key);
  marks_[s.key_path(key)] = v.IsNull() ? s.key_marks.at(key) : v.Mark();
  return v;
}

}  // namespace npu::config_loader
