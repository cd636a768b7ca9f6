// Where the second YAML document of a file starts: a config or strategy file is one YAML
// document, and yaml-cpp's Load() silently ignores everything after a `---` separator.
#pragma once

#include <cstddef>
#include <string_view>

namespace npu {

/// 1-based line of the `---` (or `...` end marker followed by content) that starts the
/// second document of `text`, or 0 when it cannot be found (the caller falls back to the
/// parser's mark). Counts a leading `---` as the start of the first document.
std::size_t second_yaml_document_line(std::string_view text);

}  // namespace npu
