#include "npu/base/user_text.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace npu {

namespace {

/// Length of the valid UTF-8 sequence starting at s[i], or 0 when s[i] does not start one
/// (RFC 3629, table 3-7 of The Unicode Standard: well-formed byte sequences).
std::size_t utf8_len(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) return 1;
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) n = 2;
  else if (c == 0xE0) n = 3, lo = 0xA0;
  else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) n = 3;
  else if (c == 0xED) n = 3, hi = 0x9F;
  else if (c == 0xF0) n = 4, lo = 0x90;
  else if (c >= 0xF1 && c <= 0xF3) n = 4;
  else if (c == 0xF4) n = 4, hi = 0x8F;
  else return 0;
  if (i + n > s.size()) return 0;
  if (b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
  return n;
}

std::string hex_byte(unsigned char c) { return fmt::format("\\x{:02x}", c); }

}  // namespace

bool is_valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_len(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string utf8_escaped(std::string_view s) {
  if (is_valid_utf8(s)) return std::string(s);
  std::string out;
  out.reserve(s.size() + 16);
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_len(s, i);
    if (n == 0) {
      out += hex_byte(static_cast<unsigned char>(s[i]));
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string echo(std::string_view s, std::size_t max_chars) {
  std::string out;
  std::size_t chars = 0;  // characters shown (a UTF-8 sequence or \xNN counts as one)
  std::size_t i = 0;
  for (; i < s.size() && chars < max_chars; ++chars) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const std::size_t n = utf8_len(s, i);
    if (n == 1 && c >= 0x20 && c < 0x7F) {
      out.push_back(char(c));
      i += 1;
    } else if (n > 1) {
      out.append(s.substr(i, n));
      i += n;
    } else {
      out += hex_byte(c);
      i += 1;
    }
  }
  if (i < s.size()) out += fmt::format("...({} bytes)", s.size());
  return out;
}

std::string summary_line(std::string_view message) {
  const std::size_t nl = message.find('\n');
  std::string first(message.substr(0, nl));
  if (nl == std::string_view::npos || first.empty() || first.back() != ':') return first;
  std::string item;
  int more = 0;
  std::size_t at = nl + 1;
  while (at < message.size()) {
    const std::size_t end = std::min(message.find('\n', at), message.size());
    const std::string_view line = message.substr(at, end - at);
    at = end + 1;
    const std::size_t b = line.find_first_not_of(" \t");
    if (b == 0 || b == std::string_view::npos) break;  // not indented, or blank: the list ended
    if (line.substr(b, 4) == "fix:") break;
    if (item.empty()) item = std::string(line.substr(b));
    else ++more;
  }
  if (item.empty()) return first;
  return first + " " + item + (more > 0 ? " (and " + std::to_string(more) + " more)" : std::string());
}

}  // namespace npu
