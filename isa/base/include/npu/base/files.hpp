// Input files the tool reads: a device, pipe or socket (e.g. /dev/zero, /dev/stdin) is
// refused before reading, since reading it may never end or would run out of memory.
#pragma once

#include <string>

namespace npu {

/// Throws npu::ConfigError "PATH: error: is not a regular file ... fix: give the WHAT file
/// itself" when `path` exists and is neither a regular file nor a directory (directories have
/// their own messages where they are read). A missing path is left to the caller's open error.
void require_regular_file(const std::string& path, const std::string& what);

}  // namespace npu
