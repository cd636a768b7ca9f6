// "Did you mean" suggestions for names a user typed (config keys, enumeration values, sweep
// axis paths, strategy and pass names).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace npu {

/// The name in `allowed` closest to `word` if it is plausibly a typo of it (case-insensitive
/// edit distance at most max(2, length / 3), or a prefix either way), else nullopt. Ties go
/// to the first allowed name, so the suggestion is deterministic. The config loader's "did you
/// mean" suggestions; other input readers use it too.
std::optional<std::string> closest_name(const std::string& word, const std::vector<std::string>& allowed);

}  // namespace npu
