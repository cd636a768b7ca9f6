// Helpers for tests that run the built `npu` tool (each simulation is its own process,
// as SystemC requires) and read what it wrote.
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
  int exit_status = -1;
  std::string output;  ///< stdout and stderr together
};

/// Runs NPU_TOOL_PATH with `args` (each single-quoted for the shell) from the repo root.
inline ToolResult run_npu(const std::vector<std::string>& args) {
  std::string cmd = std::string("cd '") + NPU_SOURCE_DIR + "' && '" + NPU_TOOL_PATH + "'";
  for (const auto& a : args) cmd += " '" + a + "'";
  cmd += " 2>&1";
  ToolResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  int status = pclose(p);
  r.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
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

/// The shared real-model folder beside the checkout, or "" when absent.
inline std::string shared_models_dir() {
  std::filesystem::path p = std::filesystem::path(NPU_SOURCE_DIR) / ".." / "shared" / "models";
  return std::filesystem::exists(p / "resnet50_bn.onnx") ? p.string() : std::string();
}

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
