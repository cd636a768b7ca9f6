// The running `npu` binary's path, for the commands that start child processes (experiment,
// sweep, verify, llm: one simulation per process, SystemC elaborates once per process).
#pragma once

#include <filesystem>
#include <string>
#include <system_error>

namespace npu::tool {

/// /proc/self/exe resolved, or "npu" (found on PATH) when it cannot be read.
inline std::string self_exe() {
  std::error_code ec;
  const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("npu") : p.string();
}

}  // namespace npu::tool
