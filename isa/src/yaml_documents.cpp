#include "npu/isa/yaml_documents.hpp"

namespace npu {

std::size_t second_yaml_document_line(std::string_view text) {
  bool content = false;  // the first document has started (content or its own '---')
  std::size_t line_no = 0;
  for (std::size_t start = 0; start <= text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    ++line_no;
    const bool marker = line.substr(0, 3) == "---" && (line.size() == 3 || line[3] == ' ' || line[3] == '\r');
    if (marker) {
      if (content) return line_no;
      content = true;
    } else {
      const std::size_t first = line.find_first_not_of(" \t\r");
      if (first != std::string_view::npos && line[first] != '#' && line.substr(0, 1) != "%") content = true;
    }
    if (end == text.size()) break;
    start = end + 1;
  }
  return 0;
}

}  // namespace npu
