#include "npu/base/yaml_file.hpp"

#include <fmt/format.h>

#include <vector>

#include "npu/base/config_error.hpp"
#include "npu/base/text_lines.hpp"
#include "npu/base/yaml_depth.hpp"
#include "npu/base/yaml_documents.hpp"

namespace npu {

void throw_yaml_error(const std::string& source, const YAML::Mark& mark, const std::string& what,
                      const std::string& fix) {
  std::string where = source;
  if (!mark.is_null()) where += fmt::format(":{}:{}", mark.line + 1, mark.column + 1);
  throw ConfigError(fmt::format("{}: error: {}\n{}", where, what, fix));
}

YAML::Node load_one_yaml_document(const std::string& text, const std::string& source, const YamlFileKind& kind) {
  check_line_lengths(text, source, kind.what);
  check_yaml_characters(text, source, kind.what);
  check_yaml_depth(text, source, kind.what);
  std::vector<YAML::Node> docs;
  try {
    docs = load_all_yaml(text);
  } catch (const YAML::Exception& e) {
    throw_yaml_error(source, e.mark, "malformed YAML: " + e.msg, kind.malformed_fix);
  }
  if (docs.size() > 1)
    throw_yaml_error(source, second_document_mark(docs, text),
                     fmt::format("file has {} YAML documents; {}", docs.size(), kind.one_document),
                     "  remove the '---' separator and what follows it (or merge the documents into one map)");
  return docs.empty() ? YAML::Node() : docs[0];
}

}  // namespace npu
