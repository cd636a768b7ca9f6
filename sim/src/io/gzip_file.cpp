// gzip output stream over zlib (gzip_file.hpp).
#include "npu/sim/io/gzip_file.hpp"

#include <sys/stat.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>

#include "npu/base/temp_files.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace npu::sim {

struct GzipFileBuf::State {
  z_stream s{};
};

namespace {
constexpr std::size_t kChunk = 1 << 16;
}

GzipFileBuf::GzipFileBuf(const std::string& path, int level) : path_(path), z_(std::make_unique<State>()) {
  file_ = std::fopen(path.c_str(), "wb");
  if (!file_)
    throw ConfigError(path + ": error: cannot write this file (missing folder or no permission); choose a "
                             "writable --out folder");
  // Partial until close(): removed if a signal ends the run (temp_files.hpp); a device such
  // as /dev/null is never a partial file.
  struct stat st {};
  if (::fstat(::fileno(file_), &st) == 0 && S_ISREG(st.st_mode)) {
    npu::register_temp_file(path_);
    registered_ = true;
  }
  // windowBits 15 + 16: a gzip header and trailer instead of zlib's (RFC 1952). The header
  // zlib writes has no name and a zero time stamp, so equal input gives equal files.
  if (deflateInit2(&z_->s, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    std::fclose(file_);
    file_ = nullptr;
    if (registered_) npu::unregister_temp_file(path_);
    throw ConfigError(path + ": error: zlib could not start a gzip stream");
  }
  in_.resize(kChunk);
  out_.resize(kChunk);
  setp(in_.data(), in_.data() + in_.size());
}

GzipFileBuf::~GzipFileBuf() {
  try {
    close();
  } catch (...) {
  }
}

void GzipFileBuf::deflate_input(int flush) {
  z_->s.next_in = reinterpret_cast<Bytef*>(pbase());
  z_->s.avail_in = uInt(pptr() - pbase());
  do {
    z_->s.next_out = reinterpret_cast<Bytef*>(out_.data());
    z_->s.avail_out = uInt(out_.size());
    const int rc = deflate(&z_->s, flush);
    if (rc == Z_STREAM_ERROR) throw ConfigError(path_ + ": error: zlib deflate failed");
    const std::size_t have = out_.size() - z_->s.avail_out;
    if (have && std::fwrite(out_.data(), 1, have, file_) != have)
      throw ConfigError(path_ + ": error: writing failed (disk full?)");
  } while (z_->s.avail_out == 0 || (flush == Z_FINISH && z_->s.avail_in > 0));
  setp(in_.data(), in_.data() + in_.size());
}

GzipFileBuf::int_type GzipFileBuf::overflow(int_type ch) {
  if (closed_) return traits_type::eof();
  deflate_input(Z_NO_FLUSH);
  if (!traits_type::eq_int_type(ch, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(ch);
    pbump(1);
  }
  return traits_type::not_eof(ch);
}

std::streamsize GzipFileBuf::xsputn(const char* s, std::streamsize n) {
  if (closed_) return 0;
  std::streamsize done = 0;
  while (done < n) {
    const std::streamsize room = epptr() - pptr();
    if (room == 0) {
      deflate_input(Z_NO_FLUSH);
      continue;
    }
    const std::streamsize k = std::min(room, n - done);
    std::memcpy(pptr(), s + done, std::size_t(k));
    pbump(int(k));
    done += k;
  }
  return n;
}

// Buffered data stays in the deflate stream until close(): a sync flush would cost ratio.
int GzipFileBuf::sync() { return 0; }

void GzipFileBuf::close() {
  if (closed_) return;
  closed_ = true;
  deflate_input(Z_FINISH);
  deflateEnd(&z_->s);
  const bool ok = std::fflush(file_) == 0;
  std::fclose(file_);
  file_ = nullptr;
  if (registered_) npu::unregister_temp_file(path_);
  if (!ok) throw ConfigError(path_ + ": error: writing failed (disk full?)");
}

}  // namespace npu::sim
