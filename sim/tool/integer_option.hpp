// Integer options of the `npu` commands, checked before CLI11 converts them: CLI11 2.1 wraps
// -1 into an unsigned target (--input-seed -1 became 18446744073709551615) and clamps a value
// past 64 bits to the type's largest (99999999999999999999 became 2^63 - 1 or 2^64 - 1), both
// silently. add_integer_option refuses anything but a whole decimal number in [lo, hi],
// naming the option (CLI11 prefixes it), the value and the range. docs/experiment.md "Options".
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

namespace npu::tool {

/// True when `v` is an optional '-' or '+' and 1 to 20 decimal digits whose value lies in
/// [lo, hi]; false for anything else (blanks, 0x10, 1e3, 1.5, a value past 64 bits).
inline bool decimal_in_range(const std::string& v, long long lo, unsigned long long hi) {
  const bool negative = !v.empty() && v[0] == '-';
  const std::size_t first = !v.empty() && (v[0] == '-' || v[0] == '+') ? 1 : 0;
  if (v.size() == first || v.size() - first > 20) return false;
  unsigned long long magnitude = 0;
  for (std::size_t i = first; i < v.size(); ++i) {
    if (v[i] < '0' || v[i] > '9') return false;
    const unsigned digit = unsigned(v[i] - '0');
    if (magnitude > (~0ULL - digit) / 10) return false;  // past 2^64 - 1
    magnitude = magnitude * 10 + digit;
  }
  if (!negative || magnitude == 0) return magnitude <= hi && (lo <= 0 || magnitude >= (unsigned long long)(lo));
  // -magnitude >= lo, with lo < 0: magnitude <= -lo (computed without overflow for LLONG_MIN)
  return lo < 0 && magnitude <= (unsigned long long)(-(lo + 1)) + 1;
}

/// `hi` as the range's upper end: 2^63 - 1 and 2^64 - 1 also by name.
inline std::string range_end_text(unsigned long long hi) {
  if (hi == ~0ULL) return std::to_string(hi) + " (2^64 - 1)";
  if (hi == (~0ULL >> 1)) return std::to_string(hi) + " (2^63 - 1)";
  return std::to_string(hi);
}

/// Adds integer option `names` bound to `target` whose value must be a decimal integer from
/// `lo` to `hi` (both within T's range); anything else is refused before any work, exit 1:
/// "--input-seed: '-1' is not an integer from 0 to 18446744073709551615 (2^64 - 1) (WHAT)".
/// `what` says what the number is (e.g. "seed of the generated inputs").
template <class T>
CLI::Option* add_integer_option(CLI::App* cmd, const std::string& names, T& target, const std::string& help,
                                long long lo, unsigned long long hi, const std::string& what) {
  const std::string range = "from " + std::to_string(lo) + " to " + range_end_text(hi);
  return cmd->add_option(names, target, help)
      ->check(CLI::Validator(
          [lo, hi, range, what](std::string& v) -> std::string {
            if (decimal_in_range(v, lo, hi)) return "";
            return "'" + v.substr(0, 32) + "' is not an integer " + range + " (" + what + ")";
          },
          "INT " + range));
}

}  // namespace npu::tool
