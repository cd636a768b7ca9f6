// Helpers shared by the test suites that run the built `npu` tool (each simulation is its
// own process, as SystemC requires) and read what it wrote. NPU_TOOL_PATH and
// NPU_SOURCE_DIR come from tests/CMakeLists.txt.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace npu::test {

struct ToolResult {
  int status = -1;     ///< exit status; -1 when killed by a signal or not started
  std::string output;  ///< stdout and stderr together
};

/// Runs a shell command line, capturing stdout and stderr together.
inline ToolResult run_shell(const std::string& command) {
  ToolResult r;
  const std::string cmd = command + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

/// Runs `NPU_TOOL_PATH ARGS` (ARGS is shell text) in the current folder.
inline ToolResult run_tool(const std::string& args) { return run_shell(std::string("'") + NPU_TOOL_PATH + "' " + args); }

/// Runs NPU_TOOL_PATH with `args` (each single-quoted for the shell) from the repo root.
inline ToolResult run_npu(const std::vector<std::string>& args) {
  std::string cmd = std::string("cd '") + NPU_SOURCE_DIR + "' && '" + NPU_TOOL_PATH + "'";
  for (const auto& a : args) cmd += " '" + a + "'";
  return run_shell(cmd);
}

/// A fresh empty folder under the system temp dir, unique per test process.
inline std::string fresh_dir(const std::string& name) {
  namespace fs = std::filesystem;
  fs::path p = fs::temp_directory_path() / ("npu-test-" + std::to_string(getpid()) + "-" + name);
  fs::remove_all(p);
  fs::create_directories(p);
  return p.string();
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(read_file(path)); }

/// Splits one CSV line (fields may be double-quoted with "" escapes).
inline std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cur += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cur += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

}  // namespace npu::test
