// Reads a text stream line by line in large blocks, under getline_capped's rules
// (npu/base/text_lines.hpp): for inputs of millions of short lines (DDR address traces), where a
// std::istream::getline call per line costs more than the line's parsing.
#pragma once

#include <cstddef>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

namespace npu {

/// The lines of `in`, as getline_capped gives them: without their '\n' ('\r' kept), a last line
/// without a newline returned, none after a final newline, empty lines empty, NUL bytes kept.
/// A line of more than kMaxLineBytes + 1 bytes is refused with getline_capped's error
/// (npu::ConfigError "FILE:LINE: error: line LINE is longer than the limit of 65536 bytes ...").
/// Reads `in` with istream::read in blocks of kBlockBytes (1 MiB); a line's view stays valid
/// until the next call. `in` must outlive the reader.
class BlockLineReader {
 public:
  static constexpr std::size_t kBlockBytes = std::size_t(1) << 20;

  /// file: the name errors give; what: the file kind in the fix ("address trace").
  BlockLineReader(std::istream& in, std::string file, const char* what);
  /// The next line into `line` (line number `line_no`, 1-based, for the error); false at the end.
  bool next(std::string_view& line, std::size_t line_no);

 private:
  /// Moves the unread bytes to the front and reads more after them; false when nothing more came.
  bool refill();

  std::istream& in_;
  std::string file_;
  const char* what_;
  std::vector<char> buf_;
  std::size_t pos_ = 0, end_ = 0;  ///< the unread bytes are buf_[pos_, end_)
  bool eof_ = false;
};

}  // namespace npu
