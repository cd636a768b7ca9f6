// Temporary output files removed when the process is ended by a signal: `npu run/simulate
// --trace ...` writes its traces under PATH.tmp.<pid> and renames them when the run ends
// (atomic_file.hpp), and a SIGTERM, SIGINT or SIGHUP used to leave those partial files
// behind (issue 27). Every temporary file is registered here while it exists; the first
// registration installs a handler for those signals that unlinks the registered files, then
// lets the signal end the process as before (the previous disposition is restored and the
// signal raised again), so the exit status still says which signal ended it.
#pragma once

#include <string>

namespace npu {

/// Most temporary files registered at once; a registration past this is not tracked (the
/// file is still removed by its owner on a normal exit or an exception).
inline constexpr int kMaxTempFiles = 64;

/// Registers `path` (a file this process creates and removes or renames itself) for removal
/// if SIGTERM, SIGINT or SIGHUP ends the process. Installs the handler on the first call;
/// a signal the process ignores (SIG_IGN, e.g. under nohup) stays ignored. Paths longer
/// than 4095 bytes are not tracked. Thread-safe and async-signal-safe to race with the handler.
void register_temp_file(const std::string& path);

/// Stops tracking `path` (after it was renamed into place or removed). Unknown paths are
/// ignored.
void unregister_temp_file(const std::string& path);

}  // namespace npu
