// Loss-free output files (output_files.hpp).
#include "npu/sim/io/output_files.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "npu/base/atomic_file.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace npu::sim {

namespace fs = std::filesystem;

void write_file_atomic(const std::string& path, const std::string& text) {
  AtomicOutputFile f(path, "file");
  f.stream() << text;
  f.commit();
}

bool copy_file_atomic(const std::string& from, const std::string& to) {
  std::ifstream in(from, std::ios::binary);
  if (!in) return false;
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return false;
  write_file_atomic(to, text.str());
  return true;
}

namespace {

// An existing device or FIFO (/dev/null, /dev/stdout): written in place (AtomicOutputFile).
bool is_special_file(const std::string& path) {
  std::error_code ec;
  const auto st = fs::status(path, ec);
  return !ec && fs::exists(st) && !fs::is_regular_file(st) && !fs::is_directory(st);
}

}  // namespace

void check_writable(const std::string& path, const char* what) {
  std::error_code ec;
  if (is_special_file(path)) {
    if (::access(path.c_str(), W_OK) == 0) return;
    throw ConfigError(path + ": error: cannot write the " + std::string(what) + " (no permission); choose a writable path");
  }
  if (fs::is_directory(path, ec))
    throw ConfigError(path + ": error: the " + std::string(what) + " path is a directory; give a file name");
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  if (!fs::is_directory(dir, ec) || ::access(dir.c_str(), W_OK) != 0)
    throw ConfigError(path + ": error: cannot write the " + std::string(what) +
                      " (missing folder or no permission); choose a writable path");
}

void refuse_same_file(const std::string& output, const std::string& input, const char* what) {
  std::error_code ec;
  const bool same = fs::exists(output, ec) && fs::exists(input, ec) && fs::equivalent(output, input, ec);
  if (same || fs::weakly_canonical(output, ec) == fs::weakly_canonical(input, ec))
    throw ConfigError(output + ": error: the " + std::string(what) + " would overwrite the input '" + input +
                      "'; choose another output path");
}

void refuse_shared_outputs(const std::vector<std::pair<std::string, std::string>>& outputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i)
    for (std::size_t j = i + 1; j < outputs.size(); ++j) {
      const std::string &a = outputs[i].first, &b = outputs[j].first;
      if (a.empty() || b.empty() || is_special_file(a)) continue;
      std::error_code ec;
      const bool same = (fs::exists(a, ec) && fs::exists(b, ec) && fs::equivalent(a, b, ec)) ||
                        fs::weakly_canonical(a, ec) == fs::weakly_canonical(b, ec);
      if (same)
        throw ConfigError(b + ": error: the " + outputs[j].second + " and the " + outputs[i].second +
                          " would be written to the same file ('" + a + "'), and the second would replace the " +
                          "first; give each its own path");
    }
}

}  // namespace npu::sim
