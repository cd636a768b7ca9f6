#include "npu/compiler/transforms/strategy.hpp"
#include "npu/base/closest_name.hpp"
#include "npu/base/user_text.hpp"
#include "npu/base/yaml_file.hpp"
#include "npu/base/files.hpp"

#include <algorithm>
#include <regex>
#include <map>
#include <set>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "npu/compiler/transforms/pass_registry.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace npu::compiler {

namespace {

[[noreturn]] void fail(const std::string& source, const YAML::Mark& mark, const std::string& what) {
  // yaml-cpp marks are 0-based; messages use 1-based line:col like compilers do.
  throw ConfigError(source + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1) +
                    ": error: " + what);
}

}  // namespace

bool Strategy::uses(const std::string& pass) const {
  return std::find(passes.begin(), passes.end(), pass) != passes.end();
}

std::string strategy_name_problem(const std::string& name) {
  if (name.empty()) return "is empty";
  for (const char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                    c == '_' || c == '.';
    if (!ok) {
      const std::string shown = (c >= 0x20 && c < 0x7f) ? std::string("'") + c + "'" : "a control or non-ASCII byte";
      return "contains " + (c == ' ' ? std::string("a space") : shown);
    }
  }
  return "";
}

std::vector<std::string> builtin_strategy_names() {
  return {"none", "conv-bn", "conv-act", "conv-bn-act", "residual", "depth-first", "transformer"};
}

Strategy builtin_strategy(const std::string& name) {
  if (name.empty())
    throw ConfigError("error: empty strategy name (allowed: " + comma_list(builtin_strategy_names()) +
                      ", or a strategy .yaml file)");
  Strategy s;
  s.name = name;
  if (name == "none") return s;
  if (name == "conv-bn") {
    s.passes = {"fold-batchnorm"};
  } else if (name == "conv-act") {
    s.passes = {"fuse-bias", "hoist-activation", "fuse-activation"};
  } else if (name == "conv-bn-act") {
    s.passes = {"fold-batchnorm", "fuse-bias", "hoist-activation", "fuse-activation"};
  } else if (name == "residual") {
    s.passes = {"fold-batchnorm", "fuse-bias", "hoist-activation", "fuse-activation", "fuse-residual", "fuse-se-gate",
                "fuse-add-layernorm"};
  } else if (name == "depth-first") {
    s.passes = {"fold-batchnorm", "fuse-bias", "hoist-activation", "fuse-activation", "fuse-residual", "fuse-se-gate",
                "fuse-add-layernorm", "fuse-gemm-epilogue", "fuse-norm-prologue", "fuse-rope", "fuse-swiglu",
                "fuse-attention", "fuse-layers"};
  } else if (name == "transformer") {
    s.passes = {"fold-batchnorm", "fuse-bias", "hoist-activation", "fuse-activation", "fuse-residual", "fuse-se-gate",
                "fuse-add-layernorm", "fuse-gemm-epilogue", "fuse-norm-prologue", "fuse-rope",
                "fuse-swiglu", "fuse-attention"};
  } else {
    throw ConfigError("error: unknown strategy '" + name + "' (allowed: " + comma_list(builtin_strategy_names()) +
                      "); define your own in a YAML file and pass it with --strategy-file");
  }
  return s;
}

// What this reader calls its file in the errors of load_one_yaml_document.
const YamlFileKind kStrategyYaml = {"strategy YAML", "a strategy file is one document",
    "  a strategy file is one YAML map (name, passes, overlap, traffic_weight): check indentation (spaces, not "
    "tabs), ':' after keys and closing brackets"};

namespace {

/// The `name` key: a non-empty name of letters, digits, '-', '_' and '.'.
void read_name(const YAML::Node& v, const std::string& source, Strategy& s) {
  if (!v.IsScalar() || v.as<std::string>().empty())
    fail(source, v.Mark(), "'name' must be a non-empty string, e.g. name: my-strategy");
  s.name = v.as<std::string>();
  const std::string problem = strategy_name_problem(s.name);
  if (!problem.empty())
    fail(source, v.Mark(),
         "strategy name '" + echo(s.name) + "' " + problem +
             "; use only letters, digits, '-', '_' and '.' (it is written into the program and file names), "
             "e.g. name: my-strategy");
}

/// Why `pass` cannot be listed in a strategy ("" when it can): unknown, or not a graph pass.
std::string pass_problem(const std::string& pass) {
  const PassInfo* info = PassRegistry::instance().find(pass);
  if (!info) {
    const auto near = closest_name(pass, pass_names());
    return "unknown pass '" + echo(pass) + "'" + (near ? " (did you mean '" + *near + "'?)" : std::string()) +
           " (allowed: " + comma_list(pass_names()) + ")";
  }
  if (info->kind == PassKind::Import)
    return "pass '" + echo(pass) + "' is an import pass, run on every imported graph; a strategy lists graph passes "
           "(allowed: " + comma_list(pass_names()) + ")";
  if (info->kind == PassKind::Program)
    return "pass '" + echo(pass) + "' is a program pass, run by the compiler after code generation (see "
           "docs/compiler.md); a strategy lists graph passes (allowed: " + comma_list(pass_names()) + ")";
  return "";
}

/// The `passes` key: registered graph passes, each once, fuse-layers last.
void read_passes(const YAML::Node& v, const std::string& source, Strategy& s) {
  if (!v.IsSequence()) fail(source, v.Mark(), "'passes' must be a list, e.g. passes: [fold-batchnorm, fuse-activation]");
  for (const auto& p : v) {
    const std::string pass = p.IsScalar() ? p.as<std::string>() : std::string();
    const std::string problem = pass_problem(pass);
    if (!problem.empty()) fail(source, p.Mark(), problem);
    for (const auto& earlier : s.passes)
      if (earlier == pass)
        fail(source, p.Mark(),
             "pass '" + echo(pass) + "' is listed twice; list each pass once (a pass already rewrites every match)");
    // fuse-layers plans depth-first stacks over the layers the other passes leave; a pass
    // after it would rewrite the marked layers (before this check, ResNet-50 got one
    // stack instead of its usual dozens, silently).
    if (!s.passes.empty() && s.passes.back() == "fuse-layers")
      fail(source, p.Mark(),
           "pass '" + echo(pass) +
               "' is listed after fuse-layers; fuse-layers groups the layers the other passes leave into "
               "depth-first stacks, so list it last");
    s.passes.push_back(pass);
  }
}

/// The `overlap` key (`key` is its key node, for the mark of a non-scalar value).
void read_overlap(const YAML::Node& key, const YAML::Node& v, const std::string& source, Strategy& s) {
  if (!v.IsScalar())
    fail(source, key.Mark(),
         "'overlap' must be one word, e.g. overlap: cache (allowed: auto, recompute, cache), not a " +
             std::string(v.IsSequence() ? "list" : v.IsMap() ? "map" : "null value"));
  const std::string w = v.as<std::string>();
  if (w == "auto") s.overlap = OverlapPolicy::Auto;
  else if (w == "recompute") s.overlap = OverlapPolicy::Recompute;
  else if (w == "cache") s.overlap = OverlapPolicy::Cache;
  else
    fail(source, v.Mark(), "overlap '" + echo(w) + "' is not a depth-first overlap mode (allowed: auto, recompute, cache)");
}

/// The `traffic_weight` key: a plain decimal number in [0, 100].
void read_traffic_weight(const YAML::Node& key, const YAML::Node& v, const std::string& source, Strategy& s) {
  const char* example = "e.g. traffic_weight: 1 (a DDR byte saved is worth its transfer time; 0: the fastest estimate only)";
  if (!v.IsScalar()) fail(source, key.Mark(), std::string("'traffic_weight' must be a number in [0, 100], ") + example);
  const std::string w = v.as<std::string>();
  // A plain decimal number (YAML core schema float/int; no hex, no quotes, no .inf/.nan).
  static const std::regex decimal(R"([-+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?)");
  if (v.Tag() != "?" || !std::regex_match(w, decimal))
    fail(source, v.Mark(), "traffic_weight '" + echo(w) + "' is not a plain decimal number (unquoted); " + example);
  const double x = std::strtod(w.c_str(), nullptr);
  if (!(x >= 0.0 && x <= 100.0))
    fail(source, v.Mark(), "traffic_weight " + echo(w) + " is out of range [0, 100]; " + example);
  s.traffic_weight = x;
}

}  // namespace

Strategy parse_strategy_yaml(const std::string& yaml_text, const std::string& source) {
  const YAML::Node root = load_one_yaml_document(yaml_text, source, kStrategyYaml);
  if (!root.IsDefined() || root.IsNull())
    throw ConfigError(source + ": error: empty strategy file; expected a map with keys 'name' and 'passes', e.g. "
                      "'name: my-strategy' and 'passes: [fold-batchnorm, fuse-activation]'");
  if (!root.IsMap()) fail(source, root.Mark(), "a strategy file is a map with keys 'name' and 'passes'");
  Strategy s;
  s.source = source;
  std::map<std::string, YAML::Mark> seen;  // key -> where it was given
  for (const auto& kv : root) {
    const std::string key = kv.first.as<std::string>();
    if (!seen.emplace(key, kv.first.Mark()).second)
      fail(source, kv.first.Mark(), "key '" + echo(key) + "' is given twice; give each key once");
    if (key == "name") read_name(kv.second, source, s);
    else if (key == "passes") read_passes(kv.second, source, s);
    else if (key == "overlap") read_overlap(kv.first, kv.second, source, s);
    else if (key == "traffic_weight") read_traffic_weight(kv.first, kv.second, source, s);
    else fail(source, kv.first.Mark(), "unknown key '" + echo(key) + "' (allowed: name, passes, overlap, traffic_weight)");
  }
  if (!seen.count("name")) fail(source, root.Mark(), "missing key 'name' (add e.g. name: my-strategy)");
  if (!seen.count("passes")) fail(source, root.Mark(), "missing key 'passes' (add e.g. passes: [fold-batchnorm]; [] for none)");
  // A built-in's name on other passes would be read everywhere (tables, programs, speedups
  // against `none`) as that built-in: the names are reserved for their own pass lists.
  const std::vector<std::string> builtins = builtin_strategy_names();
  if (std::find(builtins.begin(), builtins.end(), s.name) != builtins.end()) {
    const Strategy b = builtin_strategy(s.name);
    if (b.passes != s.passes)  // (its depth-first options may differ: a tuning the cell key tells apart)
      fail(source, seen.at("name"),
           "strategy name '" + s.name + "' is a built-in strategy's (passes: [" + comma_list(b.passes) +
               "]), and this file's passes differ; give it a name of its own, e.g. name: my-" + s.name);
  }
  if (seen.count("overlap") && !s.uses("fuse-layers"))
    fail(source, seen.at("overlap"),
         "key 'overlap' applies to depth-first stacks only: add fuse-layers to 'passes' or remove it");
  if (seen.count("traffic_weight") && !s.uses("fuse-layers"))
    fail(source, seen.at("traffic_weight"),
         "key 'traffic_weight' applies to depth-first stacks only: add fuse-layers to 'passes' or remove it");
  return s;
}

Strategy load_strategy_file(const std::string& path) {
  require_regular_file(path, "strategy YAML");
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw ConfigError(path + ": error: is a folder, not a strategy file\n  fix: give the strategy .yaml file itself "
                      "(name: ..., passes: [...]; docs/compiler.md)");
  std::ifstream in(path);
  if (!in) throw ConfigError(path + ": error: cannot open strategy file (check the path)");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_strategy_yaml(ss.str(), path);
}

}  // namespace npu::compiler
