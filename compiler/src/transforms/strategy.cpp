#include "npu/compiler/transforms/strategy.hpp"
#include "npu/base/user_text.hpp"
#include "npu/base/yaml_file.hpp"
#include "npu/base/files.hpp"

#include <algorithm>
#include <regex>
#include <set>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "npu/compiler/transforms/pass.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace npu::compiler {

namespace {

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

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

std::vector<std::string> builtin_strategy_names() { return {"none", "conv-bn", "conv-act", "conv-bn-act", "residual", "depth-first"}; }

Strategy builtin_strategy(const std::string& name) {
  if (name.empty())
    throw ConfigError("error: empty strategy name (allowed: " + join(builtin_strategy_names()) +
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
                "fuse-add-layernorm", "fuse-layers"};
  } else {
    throw ConfigError("error: unknown strategy '" + name + "' (allowed: " + join(builtin_strategy_names()) +
                      "); define your own in a YAML file and pass it with --strategy-file");
  }
  return s;
}

// What this reader calls its file in the errors of load_one_yaml_document.
const YamlFileKind kStrategyYaml = {"strategy YAML", "a strategy file is one document",
    "  a strategy file is one YAML map (name, passes, overlap, traffic_weight): check indentation (spaces, not "
    "tabs), ':' after keys and closing brackets"};

Strategy parse_strategy_yaml(const std::string& yaml_text, const std::string& source) {
  const YAML::Node root = load_one_yaml_document(yaml_text, source, kStrategyYaml);
  if (!root.IsDefined() || root.IsNull())
    throw ConfigError(source + ": error: empty strategy file; expected a map with keys 'name' and 'passes', e.g. "
                      "'name: my-strategy' and 'passes: [fold-batchnorm, fuse-activation]'");
  if (!root.IsMap()) fail(source, root.Mark(), "a strategy file is a map with keys 'name' and 'passes'");
  Strategy s;
  s.source = source;
  bool have_name = false, have_passes = false, have_overlap = false, have_weight = false;
  YAML::Mark overlap_mark, weight_mark;
  std::set<std::string> seen;
  for (const auto& kv : root) {
    const std::string key = kv.first.as<std::string>();
    if (!seen.insert(key).second)
      fail(source, kv.first.Mark(), "key '" + echo(key) + "' is given twice; give each key once");
    if (key == "name") {
      if (!kv.second.IsScalar() || kv.second.as<std::string>().empty())
        fail(source, kv.second.Mark(), "'name' must be a non-empty string, e.g. name: my-strategy");
      s.name = kv.second.as<std::string>();
      const std::string problem = strategy_name_problem(s.name);
      if (!problem.empty())
        fail(source, kv.second.Mark(),
             "strategy name '" + echo(s.name) + "' " + problem +
                 "; use only letters, digits, '-', '_' and '.' (it is written into the program and file names), "
                 "e.g. name: my-strategy");
      have_name = true;
    } else if (key == "passes") {
      if (!kv.second.IsSequence())
        fail(source, kv.second.Mark(), "'passes' must be a list, e.g. passes: [fold-batchnorm, fuse-activation]");
      for (const auto& p : kv.second) {
        const std::string pass = p.IsScalar() ? p.as<std::string>() : std::string();
        if (!make_pass(pass))
          fail(source, p.Mark(), "unknown pass '" + echo(pass) + "' (allowed: " + join(pass_names()) + ")");
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
      have_passes = true;
    } else if (key == "overlap") {
      overlap_mark = kv.first.Mark();
      if (!kv.second.IsScalar())
        fail(source, kv.first.Mark(),
             "'overlap' must be one word, e.g. overlap: cache (allowed: auto, recompute, cache), not a " +
                 std::string(kv.second.IsSequence() ? "list" : kv.second.IsMap() ? "map" : "null value"));
      const std::string v = kv.second.as<std::string>();
      if (v == "auto") s.overlap = OverlapPolicy::Auto;
      else if (v == "recompute") s.overlap = OverlapPolicy::Recompute;
      else if (v == "cache") s.overlap = OverlapPolicy::Cache;
      else
        fail(source, kv.second.Mark(),
             "overlap '" + echo(v) + "' is not a depth-first overlap mode (allowed: auto, recompute, cache)");
      have_overlap = true;
    } else if (key == "traffic_weight") {
      weight_mark = kv.first.Mark();
      const char* example =
          "e.g. traffic_weight: 1 (a DDR byte saved is worth its transfer time; 0: the fastest estimate only)";
      if (!kv.second.IsScalar())
        fail(source, kv.first.Mark(), std::string("'traffic_weight' must be a number in [0, 100], ") + example);
      const std::string v = kv.second.as<std::string>();
      // A plain decimal number (YAML core schema float/int; no hex, no quotes, no .inf/.nan).
      static const std::regex decimal(R"([-+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?)");
      if (kv.second.Tag() != "?" || !std::regex_match(v, decimal))
        fail(source, kv.second.Mark(),
             "traffic_weight '" + echo(v) + "' is not a plain decimal number (unquoted); " + example);
      const double x = std::strtod(v.c_str(), nullptr);
      if (!(x >= 0.0 && x <= 100.0))
        fail(source, kv.second.Mark(), "traffic_weight " + echo(v) + " is out of range [0, 100]; " + example);
      s.traffic_weight = x;
      have_weight = true;
    } else {
      fail(source, kv.first.Mark(), "unknown key '" + echo(key) + "' (allowed: name, passes, overlap, traffic_weight)");
    }
  }
  if (!have_name) fail(source, root.Mark(), "missing key 'name' (add e.g. name: my-strategy)");
  if (!have_passes) fail(source, root.Mark(), "missing key 'passes' (add e.g. passes: [fold-batchnorm]; [] for none)");
  if (have_overlap && !s.uses("fuse-layers"))
    fail(source, overlap_mark, "key 'overlap' applies to depth-first stacks only: add fuse-layers to 'passes' or remove it");
  if (have_weight && !s.uses("fuse-layers"))
    fail(source, weight_mark,
         "key 'traffic_weight' applies to depth-first stacks only: add fuse-layers to 'passes' or remove it");
  return s;
}

Strategy load_strategy_file(const std::string& path) {
  require_regular_file(path, "strategy YAML");
  std::ifstream in(path);
  if (!in) throw ConfigError(path + ": error: cannot open strategy file (check the path)");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_strategy_yaml(ss.str(), path);
}

}  // namespace npu::compiler
