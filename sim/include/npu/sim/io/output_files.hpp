// Output files that never lose data: written to a temporary file in the same folder and
// renamed into place only when complete, checked for writability before any work starts,
// and never the same file as an input (issue: a failed `npu compile` used to truncate its
// outputs first, and `-o` naming the input model destroyed it).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace npu::sim {

/// Writes `text` to `path` via `path.tmp.<pid>` in the same folder, then renames it over
/// `path` (atomic on POSIX). A failed write removes the temporary file and leaves `path` as
/// it was. Throws npu::ConfigError naming the path and the fix.
void write_file_atomic(const std::string& path, const std::string& text);

/// Copies `from` to `to` through write_file_atomic (a failed copy leaves `to` as it was).
/// Returns false, changing nothing, when `from` cannot be read.
bool copy_file_atomic(const std::string& from, const std::string& to);

/// Checks now, without touching `path`, that it can be written: its folder exists and is
/// writable and `path` is not a directory (or `path` is a writable device or FIFO, such as
/// /dev/null, which is written in place). `what` names it in the message ("program").
void check_writable(const std::string& path, const char* what);

/// Throws npu::ConfigError when two of `outputs` (path, what it holds; empty paths skipped)
/// are the same file (by path or inode): the later write would silently replace the earlier.
/// Devices and FIFOs (/dev/null) may be shared.
void refuse_shared_outputs(const std::vector<std::pair<std::string, std::string>>& outputs);

/// Throws npu::ConfigError when `output` and `input` are the same file (by path or inode).
void refuse_same_file(const std::string& output, const std::string& input, const char* what);

}  // namespace npu::sim
