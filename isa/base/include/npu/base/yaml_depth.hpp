// Nesting depth of YAML text, checked before yaml-cpp parses it: yaml-cpp recurses once per
// level and gives up near 500 levels with "bad file", which says nothing of the cause.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace npu {

/// Deepest nesting accepted in a YAML input (block levels plus flow brackets). The project's
/// files nest at most 4 levels (a config's ddr.timing map; a sweep spec's axes), so 64 leaves
/// room for any hand-written file and stays far below yaml-cpp's recursion limit.
inline constexpr std::size_t kMaxYamlDepth = 64;

/// Throws npu::ConfigError "FILE:LINE:COL: error: YAML nested more than 64 levels deep (the
/// limit) ..." at the first place where `text` nests deeper than kMaxYamlDepth. Depth counts,
/// outside quoted scalars and comments, each open '[' or '{' and, outside flow collections,
/// each block level (a deeper indentation, and each "- " that opens a sequence entry on a line).
/// An approximation of YAML's grammar that never under-counts a real nesting by more than the
/// block levels a line shares with its parent. `what` names the file kind ("hardware config YAML").
void check_yaml_depth(std::string_view text, const std::string& file, const char* what);

}  // namespace npu
