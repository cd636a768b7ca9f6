// User text inside messages and outputs. Anything a user wrote (a key, a token, a layer or
// node name, a file's bytes) is shown through echo(): a 1 MB token or binary bytes used to
// be copied whole into an error, and a NUL byte cut the message short. Names written into
// JSON and CSV go through utf8_escaped(), since JSON must be UTF-8 (nlohmann throws
// type_error 316 on invalid bytes and left a 0-byte run.json).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace npu {

/// "a, b, c": the allowed values or names a message lists, in the order given ("" for none).
std::string comma_list(const std::vector<std::string>& names);

/// True when a comma-separated option value (`--strategies a,b`, `--trace ddr,vcd`) is empty or
/// has an empty entry: "", ",a", "a,", "a,,b". Such a value is refused rather than read as
/// "the default" or "none".
bool has_empty_entry(std::string_view comma_separated);

/// Longest echo of user input in a message, in output characters.
constexpr std::size_t kEchoMaxChars = 80;

/// `s` for a message: printable ASCII and valid UTF-8 sequences as they are, every other
/// byte (controls, NUL, DEL, invalid UTF-8) as the four characters \xNN; when that is longer
/// than `max_chars`, its first `max_chars` characters followed by "...(N bytes)" where N is
/// the size of `s`. Example: echo(std::string(1 << 20, 'a')) = 80 x 'a' + "...(1048576 bytes)".
std::string echo(std::string_view s, std::size_t max_chars = kEchoMaxChars);

/// True when `s` is well-formed UTF-8 (RFC 3629: no overlongs, surrogates or > U+10FFFF).
bool is_valid_utf8(std::string_view s);

/// `s` unchanged when it is valid UTF-8; otherwise every byte that is not part of a valid
/// sequence becomes the four characters \xNN (e.g. "conv\xff" -> "conv\\xff"). Used for
/// names in JSON and CSV outputs so that they stay UTF-8.
std::string utf8_escaped(std::string_view s);

/// The first character of `s` that is not printable ASCII, described for a message, or "" when
/// there is none: its code point, its Unicode name for the invisible ones a copy-paste brings
/// (no-break space, zero-width space, byte order mark, ...) and its 1-based position in
/// characters. Examples: "1\u00a0MiB" -> "U+00A0 (no-break space) at character 2";
/// "a\tb" -> "U+0009 (tab) at character 2"; an invalid UTF-8 byte -> "byte 0xFF (not UTF-8)
/// at character N".
std::string first_unexpected_char(std::string_view s);

/// One line for a table cell or a summary from a (possibly multi-line) error message: its
/// first line, except that a first line ending in ':' introduces an indented list (e.g. every
/// layer a program cannot run with data), so the list's first item is appended and the others
/// counted: "...: layer 'a' (Resize) is ... (and 2 more)". An indented "fix:" line or an
/// unindented line ends the list. Example: summary_line("e:\n  x\n  y\n  fix: z") = "e: x (and 1 more)".
std::string summary_line(std::string_view message);

}  // namespace npu
