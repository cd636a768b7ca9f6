#include "npu/base/line_reader.hpp"

#include <cstring>
#include <utility>

#include "npu/base/text_lines.hpp"

namespace npu {

BlockLineReader::BlockLineReader(std::istream& in, std::string file, const char* what)
    : in_(in), file_(std::move(file)), what_(what), buf_(kBlockBytes) {
  static_assert(kBlockBytes > kMaxLineBytes + 2, "a block holds the longest accepted line and its newline");
}

bool BlockLineReader::refill() {
  if (eof_) return false;
  std::memmove(buf_.data(), buf_.data() + pos_, end_ - pos_);
  end_ -= pos_;
  pos_ = 0;
  in_.read(buf_.data() + end_, std::streamsize(buf_.size() - end_));
  const auto got = std::size_t(in_.gcount());
  end_ += got;
  if (!in_) eof_ = true;  // end of input (or a read error: the bytes read so far are the input)
  return got > 0;
}

bool BlockLineReader::next(std::string_view& line, std::size_t line_no) {
  for (;;) {
    const char* start = buf_.data() + pos_;
    const std::size_t avail = end_ - pos_;
    if (const void* nl = std::memchr(start, '\n', avail)) {
      const std::size_t len = std::size_t(static_cast<const char*>(nl) - start);
      if (len > kMaxLineBytes + 1) line_too_long(file_, line_no, what_);  // + 1: room for a trailing '\r'
      line = std::string_view(start, len);
      pos_ += len + 1;
      return true;
    }
    if (avail > kMaxLineBytes + 1) line_too_long(file_, line_no, what_);
    if (!refill()) {  // the input ended: what is left is the last line, without a newline
      if (pos_ == end_) return false;
      line = std::string_view(buf_.data() + pos_, end_ - pos_);
      pos_ = end_;
      return true;
    }
  }
}

}  // namespace npu
