// Table-driven bad-input cases (issue 12: ">= 300 bad-input cases"): each row is one bad
// input, the exact message fragment the tool must print and the exit status it must return.
// Rows are written `BadCase{...}` so scripts/count_bad_input_cases.sh can count them.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "tool_runner.hpp"

namespace npu::test {

struct BadCase {
  std::string what;      ///< the bad input, for the failure message
  std::string input;     ///< the file's text (or the argument), as the area's test uses it
  std::string fragment;  ///< must appear in the tool's output
  int exit_code = 1;     ///< 1: bad input (docs: command.hpp), never 2 (internal error) or a crash
  std::string args;      ///< extra command-line words, when the area uses them

  BadCase(std::string what_, std::string input_, std::string fragment_, int exit_code_ = 1, std::string args_ = "")
      : what(std::move(what_)), input(std::move(input_)), fragment(std::move(fragment_)), exit_code(exit_code_),
        args(std::move(args_)) {}
};

/// Runs `command` (shell text) and checks the case's exit status and message fragment.
inline void expect_case(const BadCase& c, const std::string& command) {
  SCOPED_TRACE(c.what);
  const ToolResult r = run_shell(command);
  EXPECT_EQ(r.status, c.exit_code) << r.output;
  EXPECT_NE(r.output.find(c.fragment), std::string::npos) << "expected: " << c.fragment << "\n got: " << r.output;
}

/// `text` with each "FROM=>TO" of `spec` (parts separated by "||") replaced once; a part
/// without "=>" is appended, followed by `appended_end`. A FROM not in the text is a test bug.
inline std::string edited(std::string text, const std::string& spec, const std::string& appended_end) {
  std::size_t start = 0;
  while (start < spec.size()) {
    std::size_t end = spec.find("||", start);
    if (end == std::string::npos) end = spec.size();
    const std::string one = spec.substr(start, end - start);
    const std::size_t arrow = one.find("=>");
    if (arrow == std::string::npos) {
      text += one + appended_end;
    } else {
      const std::string from = one.substr(0, arrow), to = one.substr(arrow + 2);
      const std::size_t at = text.find(from);
      EXPECT_NE(at, std::string::npos) << "test bug: '" << from << "' not in the text";
      if (at != std::string::npos) text.replace(at, from.size(), to);
    }
    start = end + 2;
  }
  return text;
}

/// Writes `text` to `path` byte for byte.
/// `s` repeated `n` times.
inline std::string repeated(const std::string& s, std::size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (std::size_t i = 0; i < n; ++i) out += s;
  return out;
}

/// `n` block-nested YAML keys, each one space deeper: " k1:\n  k2:\n   k3:\n..." (n levels).
inline std::string indented_keys(std::size_t n) {
  std::string out;
  for (std::size_t i = 1; i <= n; ++i) out += std::string(i, ' ') + "k" + std::to_string(i) + ":\n";
  return out;
}

inline void write_bytes(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

/// Single-quotes `s` for the shell.
inline std::string shq(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

/// The tool's path, quoted.
inline std::string npu_tool() { return shq(NPU_TOOL_PATH); }

}  // namespace npu::test
