// An output file written under a temporary name and renamed into place only when complete,
// for outputs written as a stream (DDR traces, generated traces, VCD): a run that fails or
// is killed halfway leaves the previous file (or none), never a truncated one that looks
// like a result. Whole-text outputs use npu::sim::write_file_atomic, built on this.
// A path that is a device or FIFO (/dev/null, /dev/stdout, a named pipe) is written in place
// instead: a rename over it would replace the device with a regular file.
#pragma once

#include <fstream>
#include <ostream>
#include <string>

namespace npu {

class AtomicOutputFile {
 public:
  /// Opens `path`.tmp.<pid> in the same folder (so the rename stays on one file system), or
  /// `path` itself when it is an existing device or FIFO.
  /// Throws npu::ConfigError "PATH: error: cannot write the WHAT (missing folder or no
  /// permission)" with the fix.
  AtomicOutputFile(std::string path, std::string what);
  /// Not committed: the temporary file is removed and `path` is left as it was.
  ~AtomicOutputFile();
  AtomicOutputFile(const AtomicOutputFile&) = delete;
  AtomicOutputFile& operator=(const AtomicOutputFile&) = delete;

  std::ostream& stream() { return out_; }
  const std::string& path() const { return path_; }
  const std::string& temp_path() const { return tmp_; }

  /// Flushes, closes and renames the temporary file over `path` (atomic on POSIX). Throws
  /// npu::ConfigError when a write failed (e.g. disk full) or the rename fails; the temporary
  /// file is then removed and `path` is unchanged. A second call does nothing.
  void commit();

 private:
  std::string path_, what_, tmp_;
  std::ofstream out_;
  bool committed_ = false;
  bool direct_ = false;  ///< `path` is a device or FIFO: written in place, never renamed over
};

}  // namespace npu
