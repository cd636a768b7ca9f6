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

namespace {

// 1-based number of the first line indented with a tab (a tab before its first other
// character), or 0. YAML indents with spaces only; yaml-cpp's message for a tab says nothing
// of it ("illegal map value", "end of map not found").
std::size_t first_tab_indented_line(const std::string& text) {
  std::size_t line = 1;
  bool leading = true, tab = false;
  for (char c : text) {
    if (c == '\n') {
      ++line;
      leading = true;
      tab = false;
    } else if (leading && (c == ' ' || c == '\t')) {
      tab = tab || c == '\t';
    } else if (leading) {
      if (tab && c != '\r' && c != '#') return line;
      leading = false;
    }
  }
  return 0;
}

}  // namespace

YAML::Node load_one_yaml_document(const std::string& text, const std::string& source, const YamlFileKind& kind) {
  check_line_lengths(text, source, kind.what);
  check_yaml_characters(text, source, kind.what);
  check_yaml_depth(text, source, kind.what);
  std::vector<YAML::Node> docs;
  try {
    docs = load_all_yaml(text);
  } catch (const YAML::Exception& e) {
    if (const std::size_t tab_line = first_tab_indented_line(text))
      throw ConfigError(fmt::format("{}:{}: error: malformed YAML: line {} is indented with a tab character ({} at "
                                    "{}:{})\n  YAML indents with spaces only: replace the tab with spaces",
                                    source, tab_line, tab_line, e.msg, e.mark.line + 1, e.mark.column + 1));
    throw_yaml_error(source, e.mark, "malformed YAML: " + e.msg, kind.malformed_fix);
  }
  if (docs.size() > 1)
    throw_yaml_error(source, second_document_mark(docs, text),
                     fmt::format("file has {} YAML documents; {}", docs.size(), kind.one_document),
                     "  remove the '---' separator and what follows it (or merge the documents into one map)");
  return docs.empty() ? YAML::Node() : docs[0];
}

}  // namespace npu
