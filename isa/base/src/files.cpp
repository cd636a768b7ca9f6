#include "npu/base/files.hpp"

#include <filesystem>

#include "npu/base/config_error.hpp"

namespace npu {

void require_regular_file(const std::string& path, const std::string& what) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st) || fs::is_regular_file(st) || fs::is_directory(st)) return;
  throw ConfigError(path + ": error: is not a regular file (a device, pipe or socket: reading it might never end)\n"
                    "  fix: give the " + what + " file itself");
}

}  // namespace npu
