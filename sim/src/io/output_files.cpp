// Loss-free output files (output_files.hpp).
#include "npu/sim/io/output_files.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

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

void check_writable(const std::string& path, const char* what) {
  std::error_code ec;
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

}  // namespace npu::sim
