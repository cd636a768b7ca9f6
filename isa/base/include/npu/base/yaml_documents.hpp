// Where the second YAML document of a file starts: a config or strategy file is one YAML
// document, and yaml-cpp's Load() silently ignores everything after a `---` separator.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace npu {

/// 1-based line of the `---` (or `...` end marker followed by content) that starts the
/// second document of `text`, or 0 when it cannot be found (the caller falls back to the
/// parser's mark). Counts a leading `---` as the start of the first document.
std::size_t second_yaml_document_line(std::string_view text);

/// YAML::LoadAll(text) without its endless loop: yaml-cpp 0.7 (Debian's) returns an empty
/// document for a token no grammar rule consumes (',' outside a flow collection, as in
/// ", b" or "[a]\n,") without consuming it, so LoadAll appends empty documents until
/// memory runs out (yaml-cpp issue #1040; fixed upstream by PR #1319, after 0.7). This
/// walks the documents with yaml-cpp's own parser first and, where a document starts at
/// the same place as the one before (no progress), throws YAML::ParserException at that
/// mark ("unexpected ','"); otherwise returns YAML::LoadAll(text).
/// Throws what YAML::LoadAll throws (YAML::ParserException, YAML::Exception).
std::vector<YAML::Node> load_all_yaml(const std::string& text);

/// Where to report "file has N YAML documents" for `docs` (at least two) loaded from `text`:
/// the line of the second document's `---` (column 0) when second_yaml_document_line finds
/// it, else yaml-cpp's mark of the second document.
YAML::Mark second_document_mark(const std::vector<YAML::Node>& docs, std::string_view text);

}  // namespace npu
