// "Did you mean" for names a user typed: the closest allowed name within a typo's distance.
#include "npu/base/closest_name.hpp"

#include <algorithm>
#include <cctype>
#include <limits>

namespace npu {
namespace {

std::string lower(std::string s) {
  for (char& ch : s) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

/// Case-insensitive optimal-string-alignment distance: insert, delete, substitute and swap two
/// adjacent characters each cost 1 (Damerau's transposition: "vdc" is 1 from "vcd", where plain
/// Levenshtein put it at 2, level with "ddr", and the first of the tie won).
std::size_t edit_distance(const std::string& a_in, const std::string& b_in) {
  const std::string a = lower(a_in), b = lower(b_in);
  std::vector<std::size_t> prev2(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) cur[j] = std::min(cur[j], prev2[j - 2] + 1);
    }
    std::swap(prev2, prev);
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

/// The allowed name closest to `word`, if it is plausibly a typo of it: edit distance at
/// most max(2, longer length / 3), or one is a prefix of the other (case-insensitive).
/// Ties go to the first allowed name, so the suggestion is deterministic.
std::optional<std::string> closest_name(const std::string& word, const std::vector<std::string>& allowed) {
  std::optional<std::string> best;
  std::size_t best_d = std::numeric_limits<std::size_t>::max();
  const std::string lw = lower(word);
  for (const auto& cand : allowed) {
    const std::string lc = lower(cand);
    std::size_t d = edit_distance(word, cand);
    const std::size_t limit = std::max<std::size_t>(2, std::max(lw.size(), lc.size()) / 3);
    const bool prefix = !lw.empty() && (lc.rfind(lw, 0) == 0 || lw.rfind(lc, 0) == 0);
    if (d > limit && !prefix) continue;
    if (prefix && d > limit) d = limit;  // rank prefix matches like a borderline typo
    if (d < best_d) {
      best_d = d;
      best = cand;
    }
  }
  return best;
}

}  // namespace npu
