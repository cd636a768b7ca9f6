#include "npu/base/text_lines.hpp"

#include <algorithm>
#include <istream>

#include <fmt/format.h>

#include "npu/base/config_error.hpp"

namespace npu {

namespace {

// `size`: the line's length when known ("1048578 bytes"), else "".
[[noreturn]] void too_long(const std::string& file, std::size_t line_no, const std::string& size, const char* what) {
  throw ConfigError(fmt::format(
      "{}:{}: error: line {} is longer than the limit of {} bytes{}\n"
      "  fix: the {} must be a text file of shorter lines (a binary file, or a text that lost its newlines, is "
      "not one)",
      file, line_no, line_no, kMaxLineBytes, size.empty() ? "" : " (" + size + ")", what));
}

}  // namespace

void check_line_lengths(std::string_view text, const std::string& file, const char* what) {
  std::size_t line_no = 1, start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::size_t len = end - start;
    if (len > 0 && text[start + len - 1] == '\r') --len;
    if (len > kMaxLineBytes) too_long(file, line_no, fmt::format("{} bytes", len), what);
    if (end == text.size()) break;
    start = end + 1;
    ++line_no;
  }
}

namespace {

// The UTF-16/UTF-32 byte-order marks (Unicode 15, section 23.8), longest first: FF FE 00 00 is
// UTF-32LE, FF FE alone UTF-16LE. "" for a text without one.
const char* utf16_or_32(std::string_view text) {
  if (text.substr(0, 4) == std::string_view("\xFF\xFE\0\0", 4)) return "UTF-32LE (byte-order mark FF FE 00 00)";
  if (text.substr(0, 4) == std::string_view("\0\0\xFE\xFF", 4)) return "UTF-32BE (byte-order mark 00 00 FE FF)";
  if (text.substr(0, 2) == "\xFF\xFE") return "UTF-16LE (byte-order mark FF FE)";
  if (text.substr(0, 2) == "\xFE\xFF") return "UTF-16BE (byte-order mark FE FF)";
  return "";
}

}  // namespace

void check_yaml_characters(std::string_view text, const std::string& file, const char* what) {
  if (const std::string_view enc = utf16_or_32(text); !enc.empty())
    throw ConfigError(fmt::format("{}:1:1: error: the file is encoded in {}, not UTF-8\n  fix: save the {} as "
                                  "UTF-8 (e.g. iconv -f UTF-16 -t UTF-8 FILE > NEW); npu-sim reads UTF-8 text only",
                                  file, enc, what));
  std::size_t line_no = 1, column = 1;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\n') {
      ++line_no, column = 1;
      continue;
    }
    if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7F)
      throw ConfigError(fmt::format(
          "{}:{}:{}: error: byte 0x{:02X} (a control character) is not allowed in YAML\n"
          "  fix: give a {} text file; YAML allows tab, newline and printable characters only "
          "(YAML 1.2, section 5.1); a binary or corrupted file is not one",
          file, line_no, column, c, what));
    ++column;
  }
}

void line_too_long(const std::string& file, std::size_t line_no, const char* what) {
  too_long(file, line_no, "", what);  // a reader stops at the limit: the whole length is unknown
}

bool getline_capped(std::istream& in, std::string& line, const std::string& file, std::size_t line_no,
                    const char* what) {
  // istream::getline into a chunk: libstdc++ finds the newline in the stream's buffer with
  // memchr instead of taking a character at a time (a 10^6-line DDR trace's parsing was a
  // sixth of `npu ddr run`). Each call stores at most what keeps the line within
  // kMaxLineBytes + 2 bytes, the length refused below, as the byte-at-a-time loop did.
  line.clear();
  char chunk[4096];
  for (bool first = true;; first = false) {
    const std::size_t room = kMaxLineBytes + 2 - line.size();
    in.getline(chunk, std::streamsize(std::min(sizeof chunk - 1, room)) + 1);  // stores up to the size - 1
    const std::streamsize got = in.gcount();
    const bool at_end = in.eof(), newline = !at_end && !in.fail();
    if (!at_end && !newline && got == 0) return false;  // the stream was not good before the call
    line.append(chunk, std::size_t(newline ? got - 1 : got));  // gcount counts the newline, not stored
    if (line.size() > kMaxLineBytes + 1)  // + 1: room for a trailing '\r'
      line_too_long(file, line_no, what);
    if (newline) return true;
    if (at_end) {  // the last line, without a newline; none at all when nothing was read
      const bool any = !first || got > 0;
      in.clear(any ? std::ios::eofbit : (std::ios::eofbit | std::ios::failbit));
      return any;
    }
    in.clear();  // the chunk filled up before a newline: read on
  }
}

}  // namespace npu
