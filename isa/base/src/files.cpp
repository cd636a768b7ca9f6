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

void check_output_folder(const std::string& path, const std::string& flag) {
  namespace fs = std::filesystem;
  if (path.empty())
    throw ConfigError("error: " + flag + " is empty\n  fix: give an output folder, e.g. " + flag + " results");
  std::error_code ec;
  fs::path part;
  for (const fs::path& p : fs::path(path)) {  // the first existing part that is not a folder
    part /= p;
    if (p.empty() || p == "/") continue;
    if (fs::is_symlink(fs::symlink_status(part, ec)) && !fs::exists(part, ec))
      throw ConfigError(path + ": error: cannot create the output folder: '" + part.string() +
                        "' is a symbolic link to '" + fs::read_symlink(part, ec).string() +
                        "', which does not exist\n  fix: create the link's target folder, remove the link, or choose "
                        "another " + flag + " folder");
    const fs::file_status st = fs::status(part, ec);
    if (!ec && fs::exists(st) && !fs::is_directory(st))
      throw ConfigError(path + ": error: cannot create the output folder: '" + part.string() +
                        "' exists and is not a folder\n  fix: move or delete that file, or choose another " + flag +
                        " folder");
  }
}

void create_output_folder(const std::string& path, const std::string& flag) {
  namespace fs = std::filesystem;
  check_output_folder(path, flag);
  std::error_code ec;
  fs::create_directories(path, ec);
  if (ec || !fs::is_directory(path, ec))
    throw ConfigError(path + ": error: cannot create the output folder (" +
                      (ec ? ec.message() : std::string("not a folder")) + ")\n  fix: choose a writable " + flag +
                      " folder");
}

}  // namespace npu
