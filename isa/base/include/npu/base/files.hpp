// Input files the tool reads: a device, pipe or socket (e.g. /dev/zero, /dev/stdin) is
// refused before reading, since reading it may never end or would run out of memory.
#pragma once

#include <string>

namespace npu {

/// Throws npu::ConfigError "PATH: error: is not a regular file ... fix: give the WHAT file
/// itself" when `path` exists and is neither a regular file nor a directory (directories have
/// their own messages where they are read). A missing path is left to the caller's open error.
void require_regular_file(const std::string& path, const std::string& what);

/// Creates folder `path` and its parents (as std::filesystem::create_directories) for the
/// tool's outputs. Throws npu::ConfigError naming the path when it cannot: "PATH: error:
/// cannot create the output folder: 'PART' exists and is not a folder" when some part of it is
/// a regular file (or other non-folder), "'PART' is a symbolic link to 'TARGET', which does not
/// exist" for a dangling link (mkdir reports it as "File exists"), else with the system's reason; both say the fix (move
/// that file away or choose another `flag`). Never lets std::filesystem::filesystem_error
/// escape, so a user's path mistake is exit 1, not an internal error.
void create_output_folder(const std::string& path, const std::string& flag = "--out");

/// The first check of create_output_folder alone, creating nothing: throws its "'PART' exists
/// and is not a folder" error when some part of `path` is a regular file (or other
/// non-folder). For checks before work starts, which must leave the folder as it was.
void check_output_folder(const std::string& path, const std::string& flag = "--out");

}  // namespace npu
