// A gzip-compressed output file as a std::ostream (zlib's deflate with the gzip wrapper,
// RFC 1952), for `--trace-compress`: the DDR trace CSV as ddr.csv.gz, which gunzip, zcat and
// pandas.read_csv read directly. Deterministic: no file name or time stamp in the header.
#pragma once

#include <cstdio>
#include <memory>
#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

namespace npu::sim {

class GzipFileBuf : public std::streambuf {
 public:
  /// Opens `path` for writing; throws npu::ConfigError naming the path when it cannot.
  explicit GzipFileBuf(const std::string& path, int level = 6);
  ~GzipFileBuf() override;
  /// Flushes the deflate stream, writes the gzip trailer and closes the file. Throws
  /// npu::ConfigError on a write error (disk full). Called by the destructor if not before
  /// (which then swallows errors).
  void close();

 protected:
  int_type overflow(int_type ch) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  void deflate_input(int flush);
  std::string path_;
  std::FILE* file_ = nullptr;
  struct State;
  std::unique_ptr<State> z_;
  std::vector<char> in_, out_;
  bool closed_ = false;
  bool registered_ = false;  ///< path_ is a regular file registered with register_temp_file
};

/// std::ostream over a GzipFileBuf.
class GzipOFStream : public std::ostream {
 public:
  explicit GzipOFStream(const std::string& path, int level = 6) : std::ostream(nullptr), buf_(path, level) {
    rdbuf(&buf_);
  }
  void close() { flush(), buf_.close(); }

 private:
  GzipFileBuf buf_;
};

}  // namespace npu::sim
