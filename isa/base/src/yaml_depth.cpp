// Nesting depth of YAML text (yaml_depth.hpp).
#include "npu/base/yaml_depth.hpp"

#include <vector>

#include <fmt/format.h>

#include "npu/base/config_error.hpp"

namespace npu {
namespace {

[[noreturn]] void too_deep(const std::string& file, std::size_t line, std::size_t col, const char* what) {
  throw ConfigError(fmt::format(
      "{}:{}:{}: error: YAML nested more than {} levels deep here (the limit of a {})\n"
      "  fix: a {} nests a few levels (section: key: value); flatten the file, or give the file it was meant to be",
      file, line, col, kMaxYamlDepth, what, what));
}

// A quote opens a quoted scalar only where a token may start.
bool token_start(char prev) {
  return prev == 0 || prev == ' ' || prev == '\t' || prev == ':' || prev == ',' || prev == '[' || prev == '{' ||
         prev == '-' || prev == '?';
}

}  // namespace

void check_yaml_depth(std::string_view text, const std::string& file, const char* what) {
  std::vector<std::size_t> indents;  // open block levels, by indentation
  std::size_t flow = 0, line_no = 0;
  char quote = 0;  // open quoted scalar (may span lines)
  for (std::size_t start = 0; start <= text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    ++line_no;
    start = end + 1;
    std::size_t i = line.find_first_not_of(' ');
    if (i == std::string_view::npos || line[i] == '#' || line[i] == '\r') continue;
    if (flow == 0 && quote == 0) {
      while (!indents.empty() && indents.back() > i) indents.pop_back();
      if (indents.empty() || indents.back() < i) indents.push_back(i);
      // "- - x": each dash opens a sequence level; a line of only dashes and spaces ("- - ") ends at npos
      for (; i != std::string_view::npos && i + 1 < line.size() && line[i] == '-' && line[i + 1] == ' ';
           i = line.find_first_not_of(' ', i + 1))
        indents.push_back(i + 1);
      if (i == std::string_view::npos) i = line.size();
      if (indents.size() > kMaxYamlDepth) too_deep(file, line_no, i + 1, what);
    }
    for (char prev = i > 0 ? line[i - 1] : 0; i < line.size(); prev = line[i++]) {
      const char c = line[i];
      if (quote) {
        if (c == quote && !(quote == '"' && prev == '\\')) quote = 0;
      } else if ((c == '"' || c == '\'') && token_start(prev)) {
        quote = c;
      } else if (c == '#' && (prev == ' ' || prev == '\t')) {
        break;
      } else if (c == '[' || c == '{') {
        if (indents.size() + ++flow > kMaxYamlDepth) too_deep(file, line_no, i + 1, what);
      } else if ((c == ']' || c == '}') && flow > 0) {
        --flow;
      }
    }
  }
}

}  // namespace npu
