#include "npu/base/atomic_file.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "npu/base/config_error.hpp"
#include "npu/base/temp_files.hpp"

namespace npu {

namespace {

// True when `path` names an existing file that is neither a regular file nor a folder (a
// character device such as /dev/null or /dev/stdout, a FIFO, a socket), following symlinks.
bool is_special_file(const std::string& path) {
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  return !ec && std::filesystem::exists(st) && !std::filesystem::is_regular_file(st) &&
         !std::filesystem::is_directory(st);
}

}  // namespace

AtomicOutputFile::AtomicOutputFile(std::string path, std::string what)
    : path_(std::move(path)), what_(std::move(what)), tmp_(path_ + ".tmp." + std::to_string(::getpid())) {
  // A device or FIFO is written in place: renaming a temporary file over /dev/null would
  // replace the device with a regular file (as root) or fail (as a user).
  if (is_special_file(path_)) {
    tmp_ = path_;
    direct_ = true;
  }
  if (!direct_) register_temp_file(tmp_);  // removed if a signal ends the process (temp_files.hpp)
  out_.open(tmp_, std::ios::binary | (direct_ ? std::ios::out : std::ios::trunc));
  if (!out_ && !direct_) unregister_temp_file(tmp_);
  if (!out_)
    throw ConfigError(path_ + ": error: cannot write the " + what_ +
                      " (missing folder or no permission)\n  fix: choose a writable path");
}

AtomicOutputFile::~AtomicOutputFile() {
  if (committed_) return;
  out_.close();
  if (!direct_) std::remove(tmp_.c_str());
  if (!direct_) unregister_temp_file(tmp_);
}

void AtomicOutputFile::commit() {
  if (committed_) return;
  out_.flush();
  const bool ok = bool(out_);
  out_.close();
  if (!ok || out_.fail()) {
    if (!direct_) std::remove(tmp_.c_str());
    if (!direct_) unregister_temp_file(tmp_);
    committed_ = true;  // nothing left to clean up
    throw ConfigError(path_ + ": error: writing the " + what_ + " failed (disk full?)" +
                      (direct_ ? std::string(" (a device or pipe, written in place)")
                               : std::string("; the previous file is unchanged")));
  }
  if (direct_) {
    committed_ = true;
    return;
  }
  std::error_code ec;
  std::filesystem::rename(tmp_, path_, ec);
  unregister_temp_file(tmp_);
  committed_ = true;
  if (ec) {
    std::remove(tmp_.c_str());
    throw ConfigError(path_ + ": error: cannot replace the " + what_ + " (" + ec.message() +
                      "); the previous file is unchanged");
  }
}

}  // namespace npu
