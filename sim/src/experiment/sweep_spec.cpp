// Sweep spec reading and config-cell planning (sweep_spec.hpp, docs/sweep.md).
#include "npu/sim/experiment/sweep_spec.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "npu/compiler/frontend/model_loader.hpp"
#include "npu/compiler/frontend/zoo/llm/llm_name.hpp"
#include "npu/compiler/frontend/zoo/zoo.hpp"
#include "npu/base/closest_name.hpp"
#include "npu/base/files.hpp"
#include "npu/base/safe_file_name.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "npu/hw_config/hw_config_node.hpp"
#include "npu/base/yaml_file.hpp"
#include "npu/sim/experiment/experiment.hpp"

namespace npu::sim {
namespace fs = std::filesystem;

std::vector<std::string> SweepSpec::axis_paths() const {
  std::vector<std::string> out;
  for (const auto& a : axes) out.insert(out.end(), a.paths.begin(), a.paths.end());
  return out;
}

std::size_t SweepSpec::config_count() const {
  std::size_t n = 1;
  for (const auto& a : axes) n *= a.values.size();
  return n;
}

namespace {

const std::vector<std::string> kTopKeys = {"base", "set", "axes", "zip", "models", "strategies", "options"};
const std::vector<std::string> kOptionKeys = {"trace", "input_shape", "dynamic_size", "npu_only"};
const std::vector<std::string> kTraceKinds = {"ddr", "timeline", "vcd"};

std::string join_with(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

/// Every leaf key of the config schema as a dotted path ("sram.capacity"), schema order.
std::vector<std::string> config_leaf_paths() {
  std::set<std::string> sections;
  for (const auto& s : hw_config_schema()) sections.insert(s.path);
  std::vector<std::string> leaves;
  for (const auto& s : hw_config_schema())
    for (const auto* list : {&s.required, &s.optional})
      for (const auto& k : *list) {
        const std::string p = s.path.empty() ? k : s.path + "." + k;
        if (!sections.count(p)) leaves.push_back(p);
      }
  return leaves;
}

// What this reader calls its file in the errors of load_one_yaml_document.
const YamlFileKind kSweepSpecYaml = {"sweep spec YAML", "a sweep spec is one document",
    "  a sweep spec is one YAML map (base, axes, zip, set, models, strategies, options); check indentation, "
    "':' after keys and closing brackets"};

class SpecReader {
 public:
  SpecReader(std::string source, std::string base_dir) : source_(std::move(source)), dir_(std::move(base_dir)) {}

  SweepSpec read(const std::string& text) {
    const YAML::Node root = load_one_yaml_document(text, source_, kSweepSpecYaml);
    if (!root.IsMap())
      fail(root.Mark(), "a sweep spec must be a map, got " + describe(root),
           "  write e.g.\n    base: edge-npu-ddr4\n    axes: {sram.capacity: [256KiB, 1MiB]}\n    models: [resnet18]");
    SweepSpec spec;
    spec.source = source_;
    std::map<std::string, YAML::Node> top = keys_of(root, "the top level", kTopKeys);
    if (!top.count("base"))
      fail(root.Mark(), "missing key 'base' (the hardware config every cell starts from)",
           "  give a preset name (" + join_with(preset_names()) + ") or a config YAML path relative to the spec");
    if (!top.count("models"))
      fail(root.Mark(), "missing key 'models'", "  give a list of zoo names or .onnx paths, e.g. 'models: [resnet18]'");
    read_base(top["base"], spec);
    std::set<std::string> used_paths;
    if (top.count("set")) {
      const YAML::Node set = top["set"];
      for (const auto& [path, value] : map_entries(set, "'set'")) {
        check_path(path, "set", used_paths);
        spec.set.emplace_back(path.Scalar(), scalar_value(value, "set entry '" + path.Scalar() + "'"));
      }
    }
    if (top.count("axes"))
      for (const auto& [path, values] : map_entries(top["axes"], "'axes'")) {
        check_path(path, "axis", used_paths);
        SweepAxis axis;
        axis.paths.push_back(path.Scalar());
        for (const auto& v : value_list(values, path.Scalar())) axis.values.push_back({v});
        spec.axes.push_back(std::move(axis));
      }
    if (top.count("zip")) {
      const YAML::Node zip = top["zip"];
      if (zip.IsMap()) {
        spec.axes.push_back(read_zip(zip, used_paths));
      } else if (zip.IsSequence() && zip.size() > 0) {
        for (const auto& group : zip) spec.axes.push_back(read_zip(group, used_paths));
      } else {
        fail(zip.Mark(), "'zip' must be a map of key paths to equal-length lists (or a list of such maps), got " +
                             describe(zip),
             "  e.g. 'zip: {mac_array.rows: [16, 32], mac_array.cols: [16, 32]}'");
      }
    }
    for (const auto& [node, text] : string_list(top["models"], "models")) spec.models.push_back(resolve_model(node, text));
    no_repeats(top["models"], "models");
    same_zoo_model_once(top["models"]);
    if (top.count("strategies")) {
      for (const auto& [node, text] : string_list(top["strategies"], "strategies"))
        spec.strategies.push_back(resolve_strategy_entry(node, text));
      no_repeats(top["strategies"], "strategies");
    } else {
      spec.strategies = {"none", "conv-bn", "conv-act", "conv-bn-act", "residual"};
    }
    if (top.count("options")) read_options(top["options"], spec);
    return spec;
  }

 private:
  [[noreturn]] void fail(const YAML::Mark& m, const std::string& what, const std::string& hint) const {
    throw_yaml_error(source_, m, what, hint);
  }

  static std::string describe(const YAML::Node& n) {
    switch (n.Type()) {
      case YAML::NodeType::Null: return "an empty value";
      case YAML::NodeType::Sequence: return n.size() == 0 ? "an empty list" : "a list";
      case YAML::NodeType::Map: return n.size() == 0 ? "an empty map" : "a map";
      case YAML::NodeType::Scalar: return fmt::format("'{}'", n.Scalar());
      default: return "nothing";
    }
  }

  static std::string hint_for(const std::string& word, const std::vector<std::string>& allowed) {
    if (auto c = closest_name(word, allowed)) return fmt::format("  did you mean '{}'? (allowed: {})", *c, join_with(allowed));
    return "  allowed: " + join_with(allowed);
  }

  std::map<std::string, YAML::Node> keys_of(const YAML::Node& map, const std::string& where,
                                            const std::vector<std::string>& allowed) {
    std::map<std::string, YAML::Node> out;
    for (auto it = map.begin(); it != map.end(); ++it) {
      const YAML::Node k = it->first;
      const std::string key = k.IsScalar() ? k.Scalar() : std::string();
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
        fail(k.Mark(), fmt::format("unknown key '{}' in {}", key, where), hint_for(key, allowed));
      if (out.count(key))
        fail(k.Mark(), fmt::format("duplicate key '{}' in {}", key, where), "  give each key once");
      out[key] = it->second;
    }
    return out;
  }

  std::vector<std::pair<YAML::Node, YAML::Node>> map_entries(const YAML::Node& map, const std::string& what) {
    if (!map.IsMap() || map.size() == 0)
      fail(map.Mark(),
           fmt::format("{} must be a non-empty map of config key paths to values, got {}", what, describe(map)),
           "  e.g. 'sram.capacity: [256KiB, 1MiB]' (keys as in docs/config.md, sections joined by '.')");
    std::vector<std::pair<YAML::Node, YAML::Node>> out;
    for (auto it = map.begin(); it != map.end(); ++it) out.emplace_back(it->first, it->second);
    return out;
  }

  static std::vector<std::string> preset_names() {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(fs::path(NPU_SOURCE_DIR) / "configs", ec))
      if (e.path().extension() == ".yaml") names.push_back(e.path().stem().string());
    std::sort(names.begin(), names.end());
    return names;
  }

  std::string relative(const std::string& p) const {
    if (fs::path(p).is_absolute() || dir_.empty()) return p;
    return (fs::path(dir_) / p).lexically_normal().string();
  }

  void read_base(const YAML::Node& node, SweepSpec& spec) {
    if (!node.IsScalar() || node.Scalar().empty())
      fail(node.Mark(), "'base' must be a preset name or a config path, got " + describe(node),
           "  presets: " + join_with(preset_names()));
    const std::string text = node.Scalar();
    const auto ext = fs::path(text).extension();
    if (text.find('/') == std::string::npos && ext != ".yaml" && ext != ".yml") {
      const auto presets = preset_names();
      if (std::find(presets.begin(), presets.end(), text) == presets.end())
        fail(node.Mark(), fmt::format("unknown preset '{}'", text), hint_for(text, presets) +
                                                                         "; or the path of a config YAML file");
      spec.base = (fs::path(NPU_SOURCE_DIR) / "configs" / (text + ".yaml")).string();
      spec.base_name = text;
    } else {
      spec.base = relative(text);
      spec.base_name = stem_of(text);
      std::error_code ec;
      if (!fs::exists(spec.base, ec))  // the loader's hint names the working directory, not the spec's folder
        fail(node.Mark(), fmt::format("base config '{}': no such file ({})", text, spec.base),
             "  paths are relative to the spec file's folder; or give a preset name: " + join_with(preset_names()));
    }
    try {
      load_hw_config(spec.base);  // the base itself must be a valid config
    } catch (const ConfigError& e) {
      fail(node.Mark(), fmt::format("the base config '{}' does not load:\n{}", spec.base, e.what()),
           "  fix the base config (npu config check FILE) or give another one");
    }
  }

  void check_path(const YAML::Node& key, const std::string& what, std::set<std::string>& used) {
    const std::string path = key.IsScalar() ? key.Scalar() : std::string();
    static const std::vector<std::string> leaves = config_leaf_paths();
    if (path == "npu.name")
      fail(key.Mark(), fmt::format("{} 'npu.name' cannot be swept: every cell's name is derived from its axis values",
                                   what),
           "  remove it; the summary's hw column and the axis columns name each config");
    if (std::find(leaves.begin(), leaves.end(), path) == leaves.end()) {
      bool section = false;
      for (const auto& s : hw_config_schema()) section = section || (s.path == path && !path.empty());
      fail(key.Mark(),
           section ? fmt::format("{} '{}' is a config section, not a key", what, path)
                   : fmt::format("{} '{}' is not a config key", what, path),
           section ? fmt::format("  name one key inside it, e.g. '{}.{}'", path,
                                 [&] {
                                   for (const auto& s : hw_config_schema())
                                     if (s.path == path)
                                       return s.required.empty() ? s.optional.front() : s.required.front();
                                   return std::string();
                                 }())
                   : (closest_name(path, leaves) ? fmt::format("  did you mean '{}'? (keys as in docs/config.md, "
                                                               "sections joined by '.')",
                                                               *closest_name(path, leaves))
                                                 : std::string("  keys as in docs/config.md, sections joined by '.', "
                                                               "e.g. 'sram.capacity' or 'ddr.timing.tRCD'")));
    }
    if (!used.insert(path).second)
      fail(key.Mark(), fmt::format("'{}' is given twice (in set, axes or zip)", path),
           "  each config key may be fixed or swept once; zip keys that vary together");
  }

  std::string scalar_value(const YAML::Node& v, const std::string& what) {
    if (!v.IsScalar() || v.Scalar().empty())
      fail(v.Mark(), fmt::format("{} must be one value, got {}", what, describe(v)), "  e.g. 'ddr.channels: 2'");
    return v.Scalar();
  }

  /// The values of one axis. In a zip group one key may repeat a value (the points must differ).
  std::vector<std::string> value_list(const YAML::Node& values, const std::string& path, bool zipped = false) {
    if (!values.IsSequence() || values.size() == 0)
      fail(values.Mark(), fmt::format("axis '{}' must be a non-empty list of values, got {}", path, describe(values)),
           fmt::format("  e.g. '{}: [a, b, c]'; a single value belongs under 'set'", path));
    std::vector<std::string> out;
    for (const auto& v : values) {
      const std::string text = scalar_value(v, fmt::format("a value of axis '{}'", path));
      if (!zipped && std::find(out.begin(), out.end(), text) != out.end())
        fail(v.Mark(), fmt::format("axis '{}' lists '{}' twice", path, text), "  give each value once");
      out.push_back(text);
    }
    return out;
  }

  SweepAxis read_zip(const YAML::Node& group, std::set<std::string>& used) {
    SweepAxis axis;
    const auto entries = map_entries(group, "a 'zip' group");
    for (const auto& [path, values] : entries) {
      check_path(path, "zipped axis", used);
      auto list = value_list(values, path.Scalar(), true);
      if (!axis.values.empty() && list.size() != axis.values.size())
        fail(values.Mark(),
             fmt::format("zipped axis '{}' has {} values but '{}' has {}", path.Scalar(), list.size(), axis.paths.front(),
                         axis.values.size()),
             "  zipped keys vary together: give every list in one zip group the same length");
      if (axis.values.empty()) axis.values.resize(list.size());
      for (std::size_t i = 0; i < list.size(); ++i) axis.values[i].push_back(list[i]);
      axis.paths.push_back(path.Scalar());
    }
    for (std::size_t i = 0; i < axis.values.size(); ++i)
      for (std::size_t k = 0; k < i; ++k)
        if (axis.values[i] == axis.values[k])
          fail(group.Mark(), fmt::format("zip group ({}) lists the point ({}) twice, at positions {} and {}",
                                         join_with(axis.paths), join_with(axis.values[i]), k + 1, i + 1),
               "  give each combination once");
    return axis;
  }

  std::vector<std::pair<YAML::Node, std::string>> string_list(const YAML::Node& node, const std::string& key) {
    if (!node.IsSequence() || node.size() == 0)
      fail(node.Mark(), fmt::format("'{}' must be a non-empty list, got {}", key, describe(node)),
           key == "models" ? "  e.g. 'models: [resnet18, path/to/model.onnx]'"
                           : "  e.g. 'strategies: [none, conv-bn-act]'");
    std::vector<std::pair<YAML::Node, std::string>> out;
    for (const auto& item : node) {
      if (!item.IsScalar() || item.Scalar().empty())
        fail(item.Mark(), fmt::format("an entry of '{}' must be a name or a path, got {}", key, describe(item)),
             "  one name or path per list entry");
      out.emplace_back(item, item.Scalar());
    }
    return out;
  }

  void no_repeats(const YAML::Node& list, const std::string& key) {
    std::set<std::string> stems;
    for (const auto& item : list)
      if (!stems.insert(stem_of(item.Scalar())).second)
        fail(item.Mark(), fmt::format("'{}' lists '{}' twice (or two entries share the name '{}')", key, item.Scalar(),
                                      stem_of(item.Scalar())),
             "  give each once; outputs are named after it");
  }

  // One zoo model under two spellings (gpt2:decode=8, gpt2:batch=1:decode=8) would run twice, as
  // `npu experiment` refuses too (new-user finding).
  void same_zoo_model_once(const YAML::Node& list) {
    std::vector<std::string> names;
    for (const auto& item : list) names.push_back(item.Scalar());
    const auto pair = compiler::repeated_zoo_model(names);
    if (!pair) return;
    const std::string &earlier = names[pair->first], &later = names[pair->second];
    fail(list[pair->second].Mark(),
         fmt::format("'models' lists '{}', the same model as '{}' ({})", later, earlier,
                     *compiler::zoo_canonical_name(later)),
         "  give it once");
  }

  std::string resolve_model(const YAML::Node& node, const std::string& text) {
    if (compiler::zoo_canonical_name(text)) return text;
    const bool path_like = text.find('/') != std::string::npos || fs::path(text).extension() == ".onnx";
    if (!path_like) {
      // The zoo's own reason, as npu simulate gives it, after "model 'NAME': " (new-user finding:
      // an LLM name such as gpt2:decode=0 was "not a zoo model", with the CNNs listed).
      const auto reason = [&text](const std::string& message) {
        const std::string prefix = text + ": error: ";
        return fmt::format("model '{}': {}", text,
                           message.rfind(prefix, 0) == 0 ? message.substr(prefix.size()) : message);
      };
      try {
        compiler::parse_llm_model_name(text);  // throws for an LLM name it refuses
      } catch (const ConfigError& e) {
        fail(node.Mark(), reason(e.what()), "  LLM names: docs/llm.md; or the path of an .onnx file relative to the spec");
      }
      fail(node.Mark(), reason(compiler::zoo_unknown_model_message(text)),
           "  or the path of an .onnx file relative to the spec");
    }
    const std::string path = relative(text);
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
      fail(node.Mark(), fmt::format("model '{}': no such file ({})", text, path),
           "  paths are relative to the spec file's folder");
    return path;
  }

  std::string resolve_strategy_entry(const YAML::Node& node, const std::string& text) {
    const auto ext = fs::path(text).extension();
    const bool file = ext == ".yaml" || ext == ".yml";
    const std::string arg = file ? relative(text) : text;
    try {
      resolve_strategy(arg);
    } catch (const ConfigError& e) {
      std::string msg = e.what();
      // A built-in name: say where the spec names it. A file (even one named from the spec's
      // own folder, where the relative path is the text itself): its own file:line:col error.
      if (!file) {
        const auto names = compiler::builtin_strategy_names();
        fail(node.Mark(), fmt::format("unknown strategy '{}'", text),
             hint_for(text, names) + "; or a strategy YAML path relative to the spec (docs/compiler.md)");
      }
      fail(node.Mark(), fmt::format("strategy file '{}' does not load:\n{}", text, msg),
           "  fix the strategy file (name: ..., passes: [...]; docs/compiler.md)");
    }
    return arg;
  }

  void read_options(const YAML::Node& node, SweepSpec& spec) {
    if (!node.IsMap())
      fail(node.Mark(), "'options' must be a map, got " + describe(node), "  allowed keys: " + join_with(kOptionKeys));
    auto opts = keys_of(node, "'options'", kOptionKeys);
    if (opts.count("trace")) {
      const YAML::Node t = opts["trace"];
      std::vector<YAML::Node> items;
      if (t.IsSequence())
        for (const auto& i : t) items.push_back(i);
      else
        items.push_back(t);
      for (const auto& i : items) {
        const std::string kind = i.IsScalar() ? i.Scalar() : std::string();
        if (std::find(kTraceKinds.begin(), kTraceKinds.end(), kind) == kTraceKinds.end())
          fail(i.Mark(), fmt::format("unknown trace kind {}", describe(i)), hint_for(kind, kTraceKinds));
        spec.traces.push_back(kind);
      }
    }
    if (opts.count("input_shape")) {
      const YAML::Node s = opts["input_shape"];
      std::vector<YAML::Node> items;
      if (s.IsSequence())
        for (const auto& i : s) items.push_back(i);
      else
        items.push_back(s);
      compiler::LoadOptions lo;
      for (const auto& i : items) {
        const std::string text = i.IsScalar() ? i.Scalar() : std::string();
        try {
          compiler::add_input_shape(lo, text);
        } catch (const ConfigError& e) {
          fail(i.Mark(), fmt::format("bad input_shape {}: {}", describe(i), e.what()),
               "  write NAME=D0xD1x..., e.g. 'input_shape: [input=1x3x224x224]'");
        }
        spec.input_shapes.push_back(text);
      }
    }
    if (opts.count("dynamic_size")) {
      const YAML::Node d = opts["dynamic_size"];
      long long v = 0;
      std::size_t used = 0;
      const std::string text = d.IsScalar() ? d.Scalar() : std::string();
      try {
        v = std::stoll(text, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (text.empty() || used != text.size() || v < 1 || v > (1LL << 31))
        fail(d.Mark(), fmt::format("'options.dynamic_size' must be an integer from 1 to 2147483648, got {}", describe(d)),
             "  the largest run-time size to compile for, e.g. 'dynamic_size: 100'");
      spec.dynamic_size = v;
    }
    if (opts.count("npu_only")) {
      const YAML::Node b = opts["npu_only"];
      const std::string text = b.IsScalar() ? b.Scalar() : std::string();
      if (text != "true" && text != "false")
        fail(b.Mark(), fmt::format("'options.npu_only' must be true or false, got {}", describe(b)),
             "  true fails every cell that would place a node on the host");
      spec.npu_only = text == "true";
    }
  }

  std::string source_, dir_;
};

}  // namespace

SweepSpec parse_sweep_spec(const std::string& text, const std::string& source, const std::string& base_dir) {
  return SpecReader(source, base_dir).read(text);
}

SweepSpec load_sweep_spec(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec))
    throw ConfigError(path + ": error: is a directory\n  give the sweep spec YAML file (docs/sweep.md)");
  require_regular_file(path, "sweep spec YAML");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path + ": error: cannot open the sweep spec\n  check the path (docs/sweep.md)");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_sweep_spec(text.str(), path, fs::path(path).parent_path().string());
}

}  // namespace npu::sim
