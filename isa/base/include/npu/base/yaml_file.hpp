// Opening a one-document YAML file (hardware config, strategy, sweep spec) and reporting
// where it is wrong: the prelude and error format the three readers share.
#pragma once

#include <string>

#include <yaml-cpp/yaml.h>

namespace npu {

/// How a reader names its kind of YAML file in the errors load_one_yaml_document throws.
struct YamlFileKind {
  const char* what = "YAML";      ///< for the line-length and byte errors, e.g. "strategy YAML"
  const char* one_document = "";  ///< after "file has N YAML documents; ", e.g. "a config is one document"
  std::string malformed_fix;      ///< the fix line(s) of a parse error, indented, e.g. "  a sweep spec is one YAML map ..."
};

/// Throws npu::ConfigError "<source>:<line>:<column>: error: <what>\n<fix>", line and column
/// 1-based from yaml-cpp's 0-based mark; "<source>: error: ..." for a null mark (no position).
/// `fix` is the line(s) that say how to repair it, each indented by two spaces by the caller.
[[noreturn]] void throw_yaml_error(const std::string& source, const YAML::Mark& mark, const std::string& what,
                                   const std::string& fix);

/// The one YAML document of `text`, read from `source` (a path or "<string>"): a null node
/// when the text holds no document (empty, or comments only). Checks first what every YAML
/// input is checked for (check_line_lengths, check_yaml_characters, check_yaml_depth, with
/// `kind.what`), then
/// parses with load_all_yaml. Throws npu::ConfigError (throw_yaml_error's format) for
///   - malformed YAML: "malformed YAML: <yaml-cpp's message>" at the parser's mark, then
///     kind.malformed_fix;
///   - more than one document: "file has N YAML documents; <kind.one_document>" at the second
///     document's '---', then "  remove the '---' separator and what follows it (or merge the
///     documents into one map)".
YAML::Node load_one_yaml_document(const std::string& text, const std::string& source, const YamlFileKind& kind);

}  // namespace npu
