#include "npu/base/atomic_file.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "npu/base/config_error.hpp"

namespace npu {

AtomicOutputFile::AtomicOutputFile(std::string path, std::string what)
    : path_(std::move(path)), what_(std::move(what)), tmp_(path_ + ".tmp." + std::to_string(::getpid())) {
  out_.open(tmp_, std::ios::binary | std::ios::trunc);
  if (!out_)
    throw ConfigError(path_ + ": error: cannot write the " + what_ +
                      " (missing folder or no permission)\n  fix: choose a writable path");
}

AtomicOutputFile::~AtomicOutputFile() {
  if (committed_) return;
  out_.close();
  std::remove(tmp_.c_str());
}

void AtomicOutputFile::commit() {
  if (committed_) return;
  out_.flush();
  const bool ok = bool(out_);
  out_.close();
  if (!ok || out_.fail()) {
    std::remove(tmp_.c_str());
    committed_ = true;  // nothing left to clean up
    throw ConfigError(path_ + ": error: writing the " + what_ + " failed (disk full?); the previous file is unchanged");
  }
  std::error_code ec;
  std::filesystem::rename(tmp_, path_, ec);
  committed_ = true;
  if (ec) {
    std::remove(tmp_.c_str());
    throw ConfigError(path_ + ": error: cannot replace the " + what_ + " (" + ec.message() +
                      "); the previous file is unchanged");
  }
}

}  // namespace npu
