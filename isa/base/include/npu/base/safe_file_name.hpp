// Safe file names for names taken from inputs (ONNX tensor, graph, node and output names;
// config, model and strategy names; sweep axis values): the one place where a name becomes a
// path component, so that no input can make a writer leave its output folder
// (docs/functional.md, "Running with data"; docs/experiment.md, "Output folders").
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace npu {

/// Longest file name (in bytes, before an extension) that safe_file_name() returns.
inline constexpr std::size_t kSafeFileNameMaxBytes = 96;

/// `name` as one file-name component that stays inside the folder it is joined to:
/// - every byte outside [A-Za-z0-9_.+-] becomes '_' (so no '/', '\\', ':', space, quote,
///   control character or non-ASCII byte remains);
/// - a leading '.' becomes '_' (so no ".", "..", nor hidden file);
/// - "" becomes "_";
/// - a result longer than kSafeFileNameMaxBytes keeps its first kSafeFileNameMaxBytes - 9
///   bytes and ends in '~' and the 8 hex digits of the FNV-1a 32-bit hash of `name`, so that
///   two long names that differ only in their tail still differ.
/// Deterministic; never throws. Names already made of those characters come back unchanged.
std::string safe_file_name(const std::string& name);

/// safe_file_name() of each distinct name in `names`, made unique: names are taken in sorted
/// order (so the result does not depend on the order given), and a name whose safe form was
/// already taken (compared case-insensitively, for case-insensitive file systems) gets "~2",
/// "~3", ... appended. Returns original name -> file name.
std::map<std::string, std::string> safe_file_names(const std::vector<std::string>& names);

}  // namespace npu
