#include "npu/base/yaml_documents.hpp"

#include <optional>
#include <sstream>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

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

namespace {

/// Records where the current document starts; ignores the content (LoadAll builds it).
class DocumentStarts : public YAML::EventHandler {
 public:
  YAML::Mark start;
  void OnDocumentStart(const YAML::Mark& mark) override { start = mark; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

}  // namespace

std::vector<YAML::Node> load_all_yaml(const std::string& text) {
  {
    std::istringstream in(text);
    YAML::Parser parser(in);
    DocumentStarts starts;
    std::optional<int> previous;  // byte position where the previous document started
    while (parser.HandleNextDocument(starts)) {
      if (previous && *previous == starts.start.pos) {
        const auto pos = static_cast<std::size_t>(starts.start.pos);
        // pos counts the bytes yaml-cpp decoded: the input's own bytes for valid UTF-8.
        const bool comma = pos < text.size() && text[pos] == ',';
        throw YAML::ParserException(starts.start, comma ? "unexpected ',' (a ',' separates the items of a [...] or "
                                                          "{...} flow collection, and only there)"
                                                        : "unexpected token: no YAML rule accepts it here");
      }
      previous = starts.start.pos;
    }
  }
  return YAML::LoadAll(text);
}

YAML::Mark second_document_mark(const std::vector<YAML::Node>& docs, std::string_view text) {
  YAML::Mark m = docs.size() > 1 ? docs[1].Mark() : YAML::Mark();
  if (const std::size_t line = second_yaml_document_line(text)) m.line = int(line) - 1, m.column = 0;
  return m;
}

}  // namespace npu
