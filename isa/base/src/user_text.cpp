#include "npu/base/user_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

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

// Code point of the valid UTF-8 sequence of length n at s[i].
std::uint32_t code_point(std::string_view s, std::size_t i, std::size_t n) {
  const auto b = [&](std::size_t k) { return std::uint32_t(static_cast<unsigned char>(s[i + k])); };
  if (n == 1) return b(0);
  std::uint32_t cp = b(0) & (0x7Fu >> n);
  for (std::size_t k = 1; k < n; ++k) cp = (cp << 6) | (b(k) & 0x3Fu);
  return cp;
}

// Names of the characters that look like nothing or like a space (The Unicode Standard's
// names, lower-cased), for messages about text a user pasted.
const char* invisible_name(std::uint32_t cp) {
  switch (cp) {
    case 0x09: return "tab";
    case 0x0A: return "line feed";
    case 0x0D: return "carriage return";
    case 0x00: return "NUL";
    case 0xA0: return "no-break space";
    case 0xAD: return "soft hyphen";
    case 0x2002: return "en space";
    case 0x2003: return "em space";
    case 0x2007: return "figure space";
    case 0x2009: return "thin space";
    case 0x200A: return "hair space";
    case 0x200B: return "zero width space";
    case 0x200C: return "zero width non-joiner";
    case 0x200D: return "zero width joiner";
    case 0x2060: return "word joiner";
    case 0x202F: return "narrow no-break space";
    case 0x3000: return "ideographic space";
    case 0xFEFF: return "zero width no-break space (byte order mark)";
    default: return nullptr;
  }
}

}  // namespace

std::string first_unexpected_char(std::string_view s) {
  std::size_t pos = 1;  // in characters
  for (std::size_t i = 0; i < s.size(); ++pos) {
    const std::size_t n = utf8_len(s, i);
    if (n == 0) return fmt::format("byte 0x{:02X} (not UTF-8) at character {}", static_cast<unsigned char>(s[i]), pos);
    const std::uint32_t cp = code_point(s, i, n);
    if (cp < 0x20 || cp >= 0x7F) {
      const char* name = invisible_name(cp);
      return fmt::format("U+{:04X}{} at character {}", cp, name ? fmt::format(" ({})", name) : std::string(), pos);
    }
    i += n;
  }
  return "";
}

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

std::string comma_list(const std::vector<std::string>& names) { return fmt::format("{}", fmt::join(names, ", ")); }

bool has_empty_entry(std::string_view v) {
  return v.empty() || v.front() == ',' || v.back() == ',' || v.find(",,") != std::string_view::npos;
}

}  // namespace npu
