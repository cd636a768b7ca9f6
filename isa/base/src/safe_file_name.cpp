// Safe file names for names taken from inputs (safe_file_name.hpp).
#include "npu/base/safe_file_name.hpp"

#include <algorithm>
#include <cstdint>
#include <set>

#include <fmt/format.h>

namespace npu {
namespace {

bool safe_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
         c == '+' || c == '-';
}

std::uint32_t fnv1a32(const std::string& s) {  // FNV-1a: offset basis 2166136261, prime 16777619
  std::uint32_t h = 2166136261u;
  for (unsigned char c : s) h = (h ^ c) * 16777619u;
  return h;
}

std::string ascii_lower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
  return s;
}

}  // namespace

std::string safe_file_name(const std::string& name) {
  std::string s = name.empty() ? std::string("_") : name;
  for (char& c : s)
    if (!safe_char(c)) c = '_';
  if (s[0] == '.') s[0] = '_';
  if (s.size() > kSafeFileNameMaxBytes)
    s = s.substr(0, kSafeFileNameMaxBytes - 9) + fmt::format("~{:08x}", fnv1a32(name));
  return s;
}

std::map<std::string, std::string> safe_file_names(const std::vector<std::string>& names) {
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::map<std::string, std::string> out;
  std::set<std::string> taken;  // lower-cased
  for (const std::string& n : sorted) {
    const std::string base = safe_file_name(n);
    std::string f = base;
    for (int k = 2; taken.count(ascii_lower(f)); ++k) f = base + "~" + std::to_string(k);
    taken.insert(ascii_lower(f));
    out[n] = f;
  }
  return out;
}

}  // namespace npu
