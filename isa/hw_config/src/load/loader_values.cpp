// The loader's typed values (integers with their limits, numbers, sizes, names, address
// mappings) and the size parser they share with `npu sweep`.
#include "load/loader.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <utility>

#include "hw_config_rules.hpp"
#include "npu/base/user_text.hpp"

namespace npu {

namespace {

// ": it contains U+00A0 (no-break space) at character 2, ..." for a value holding a
// character no number or size has (a paste often brings an invisible one), else "".
std::string odd_char(const std::string& text) {
  const std::string c = first_unexpected_char(text);
  return c.empty() ? c : ": it contains " + c + ", which no number or size has; retype the value";
}

std::string lower(std::string s) {
  for (char& ch : s) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}


const std::vector<std::string> kMappingFields = {"ro", "ch", "ra", "ba", "bg", "co"};

}  // namespace

namespace config_loader {

std::string Loader::scalar(const Section& s, const std::string& key, const char* expected) {
  const YAML::Node& v = value(s, key);
  if (!v.IsScalar())
    fail(vmark(s, key), fmt::format("'{}' must be {}, got {}", s.key_path(key), expected, describe(v)),
         fmt::format("  write e.g. '{}: <{}>'", key, expected));
  return trim(v.Scalar());
}

std::string Loader::get_string(const Section& s, const std::string& key) {
  std::string text = scalar(s, key, "a string");
  if (text.empty())
    fail(vmark(s, key), fmt::format("'{}' must not be empty", s.key_path(key)), "  give a name, e.g. 'my-npu'");
  return text;
}

std::int64_t Loader::get_int64(const Section& s, const std::string& key, std::int64_t min_value,
                               std::int64_t type_max) {
  const std::string text = scalar(s, key, "an integer");
  const detail::KeyLimit* limit = detail::key_limit(s.key_path(key));
  const std::int64_t max_value = limit ? std::min<std::int64_t>(limit->max, type_max) : type_max;
  const std::string range = fmt::format("  allowed: an integer from {} to {}{}", min_value, max_value,
                                        limit ? fmt::format(" ({})", limit->reason) : std::string());
  std::int64_t v = 0;
  const char* b = text.data();
  const char* e = text.data() + text.size();
  if (b != e && *b == '+') ++b;
  auto [p, ec] = std::from_chars(b, e, v);
  if (ec == std::errc::result_out_of_range)
    fail(vmark(s, key), fmt::format("'{}' = {} is out of range: at most {}", s.key_path(key), echo(text), max_value),
         range);
  if (ec != std::errc() || p != e || b == e) {
    const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    if (hex)
      fail(vmark(s, key), fmt::format("'{}' must be a decimal integer, got '{}'", s.key_path(key), echo(text)),
           fmt::format("  hexadecimal is not accepted here; write the value in decimal{}",
                       [&] {
                         unsigned long long h = 0;
                         auto [hp, hec] = std::from_chars(text.data() + 2, text.data() + text.size(), h, 16);
                         return hec == std::errc() && hp == text.data() + text.size()
                                    ? fmt::format(" ('{}: {}')", key, h)
                                    : std::string();
                       }()));
    char* end = nullptr;
    const double d = std::strtod(text.c_str(), &end);
    const bool fraction = end && *end == '\0' && !text.empty() && std::isfinite(d) &&
                          text.find_first_of(".eE") != std::string::npos;
    fail(vmark(s, key),
         fmt::format("'{}' must be an integer, got {}'{}'{}", s.key_path(key), fraction ? "the fraction " : "",
                     echo(text), odd_char(text)),
         fmt::format("  allowed: a whole number >= {}", min_value));
  }
  if (v < min_value)
    fail(vmark(s, key), fmt::format("'{}' must be >= {}, got {}", s.key_path(key), min_value, v),
         min_value == 1 ? "  allowed: a positive whole number (zero and negative values are not meaningful)"
                        : fmt::format("  allowed: a whole number >= {}", min_value));
  if (v > max_value)
    fail(vmark(s, key), fmt::format("'{}' = {} is out of range: at most {}", s.key_path(key), v, max_value), range);
  return v;
}

int Loader::get_int(const Section& s, const std::string& key, int min_value) {
  return int(get_int64(s, key, min_value, std::numeric_limits<int>::max()));
}

double Loader::get_positive_double(const Section& s, const std::string& key, const char* unit) {
  const std::string text = scalar(s, key, "a number");
  const bool chars_ok = !text.empty() && text.find_first_not_of("0123456789+-.eE") == std::string::npos;
  char* end = nullptr;
  const double v = chars_ok ? std::strtod(text.c_str(), &end) : 0.0;
  if (!chars_ok || !end || *end != '\0' || !std::isfinite(v))
    fail(vmark(s, key), fmt::format("'{}' must be a number ({}), got '{}'{}", s.key_path(key), unit, echo(text), odd_char(text)),
         fmt::format("  write a plain number, e.g. '{}: 1000' (the unit {} is implied by the key)", key, unit));
  if (!(v > 0))
    fail(vmark(s, key), fmt::format("'{}' must be > 0, got {}", s.key_path(key), echo(text)),
         fmt::format("  allowed: a positive number in {}", unit));
  return v;
}

/// Why a size that parse_size_bytes rejects is not one, when it is a number with a known
/// unit: "; 0.3 B is 0.3 bytes, not a whole number of bytes" or "; exponents are not
/// accepted: write 1000000". "" otherwise (the generic message applies).
static std::string size_reason(const std::string& text) {
  char* end = nullptr;
  const long double number = std::strtold(text.c_str(), &end);
  if (!end || end == text.c_str() || !std::isfinite(number) || !std::isdigit(static_cast<unsigned char>(text[0])))
    return "";
  std::string unit(end);
  unit.erase(0, unit.find_first_not_of(' '));
  const std::pair<const char*, long double> units[] = {
      {"", 1},          {"B", 1},          {"KiB", 1024.0L},    {"MiB", 1048576.0L}, {"GiB", 1073741824.0L},
      {"TiB", 1099511627776.0L}, {"kB", 1e3L}, {"KB", 1e3L}, {"MB", 1e6L}, {"GB", 1e9L}, {"TB", 1e12L}};
  for (const auto& [u, mult] : units) {
    if (unit != u) continue;
    const long double bytes = number * mult;
    const std::string numeral = text.substr(0, std::size_t(end - text.c_str()));
    if (numeral.find_first_of("eE") != std::string::npos)
      return bytes == std::floor(bytes) && bytes < 1e19L
                 ? fmt::format("; exponents are not accepted: write {} (bytes)", std::uint64_t(bytes))
                 : "; exponents are not accepted";
    if (bytes != std::floor(bytes))
      return fmt::format("; {} is {} bytes, not a whole number of bytes", echo(text), double(bytes));
  }
  return "";
}

std::uint64_t Loader::get_size(const Section& s, const std::string& key) {
  const std::string text = scalar(s, key, "a size");
  const std::string hint =
      "  allowed: bytes as an integer (1048576) or with a unit: B, KiB, MiB, GiB, TiB (x1024) or kB, KB, MB, "
      "GB, TB (x1000), e.g. '1MiB' or '24 MiB'";
  if (!text.empty() && text[0] == '-')
    fail(vmark(s, key), fmt::format("'{}' must be > 0, got '{}'", s.key_path(key), echo(text)), hint);
  auto v = parse_size_bytes(text);
  if (!v && size_too_large(text))
    fail(vmark(s, key), fmt::format("'{}' = '{}' is too large: more than 2^64 - 1 bytes", s.key_path(key), echo(text)),
         fmt::format("  allowed: at most {}", max_size_text(s.key_path(key))));
  if (!v)
    fail(vmark(s, key),
         fmt::format("'{}' is not a size: '{}'{}{}", s.key_path(key), echo(text), odd_char(text), size_reason(text)),
         hint);
  if (*v == 0) fail(vmark(s, key), fmt::format("'{}' must be > 0, got '{}'", s.key_path(key), echo(text)), hint);
  if (s.key_path(key) == "sram.capacity" && *v > (std::uint64_t(1) << 32))
    fail(vmark(s, key), fmt::format("'sram.capacity' = {} bytes is too large: at most 4 GiB (4294967296 bytes)", *v),
         "  SRAM addresses in the instruction set are 32-bit byte offsets (docs/isa.md), so larger buffers cannot "
         "be addressed; on-chip buffers are KiB to tens of MiB (TPU v1: 24 MiB)");
  return *v;
}

/// `text` is a well-formed size (digits, optional fraction, a known unit) whose value
/// overflows 64 bits: parse_size_bytes rejects both, and they need different messages.
bool Loader::size_too_large(const std::string& text) {
  std::size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  if (i == 0) return false;
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  }
  const long double number = std::strtold(text.substr(0, i).c_str(), nullptr);
  while (i < text.size() && text[i] == ' ') ++i;
  const std::string unit = text.substr(i);
  const std::pair<const char*, long double> units[] = {
      {"", 1},          {"B", 1},          {"KiB", 1024.0L},    {"MiB", 1048576.0L}, {"GiB", 1073741824.0L},
      {"TiB", 1099511627776.0L}, {"kB", 1e3L}, {"KB", 1e3L}, {"MB", 1e6L}, {"GB", 1e9L}, {"TB", 1e12L}};
  for (const auto& [u, mult] : units)
    if (unit == u) return number * mult > 18446744073709551615.0L;
  return false;
}

std::string Loader::max_size_text(const std::string& key_path) {
  if (key_path == "sram.capacity") return "4 GiB (SRAM addresses are 32-bit)";
  return fmt::format("{} bytes", std::numeric_limits<int>::max());
}

int Loader::int_size(const Section& s, const std::string& key) {
  const std::uint64_t v = get_size(s, key);
  if (v > std::uint64_t(std::numeric_limits<int>::max()))
    fail(vmark(s, key), fmt::format("'{}' = {} bytes is out of range", s.key_path(key), v),
         fmt::format("  allowed: at most {} bytes", std::numeric_limits<int>::max()));
  return int(v);
}

std::size_t Loader::get_enum(const Section& s, const std::string& key, const std::vector<std::string>& allowed,
                             const char* what) {
  const std::string text = scalar(s, key, "a name");
  auto it = std::find(allowed.begin(), allowed.end(), text);
  if (it == allowed.end())
    fail(vmark(s, key), fmt::format("unknown {} '{}' for '{}'", what, echo(text), s.key_path(key)),
         choice_hint(echo(text), allowed));
  return std::size_t(it - allowed.begin());
}

std::string Loader::get_mapping(const Section& s, const std::string& key) {
  const std::string text = lower(scalar(s, key, "a mapping string"));
  const std::string fix = "  allowed: the six fields ro ch ra ba bg co, each exactly once, MSB first (e.g. "
                          "'rochrababgco'); case is ignored";
  if (text.size() % 2 != 0)
    fail(vmark(s, key), fmt::format("'{}' = '{}' has an odd length; fields are two letters each", s.key_path(key), echo(text)),
         fix);
  std::vector<std::string> seen;
  for (std::size_t i = 0; i < text.size(); i += 2) {
    const std::string f = text.substr(i, 2);
    if (std::find(kMappingFields.begin(), kMappingFields.end(), f) == kMappingFields.end())
      fail(vmark(s, key),
           fmt::format("'{}' = '{}': unknown field '{}' at character {}", s.key_path(key), echo(text), echo(f), i + 1), fix);
    if (std::find(seen.begin(), seen.end(), f) != seen.end())
      fail(vmark(s, key), fmt::format("'{}' = '{}': field '{}' appears twice", s.key_path(key), echo(text), f), fix);
    seen.push_back(f);
  }
  for (const auto& f : kMappingFields)
    if (std::find(seen.begin(), seen.end(), f) == seen.end())
      fail(vmark(s, key), fmt::format("'{}' = '{}' lacks the field '{}'", s.key_path(key), echo(text), f), fix);
  return text;
}

void Loader::require_pow2(const std::string& key_path, std::uint64_t v, const char* why) {
  if (!is_pow2(v))
    fail(mark_of(key_path), fmt::format("'{}' = {} is not a power of two", key_path, v),
         fmt::format("  {}; allowed: 1, 2, 4, 8, ...", why));
}

}  // namespace config_loader

std::optional<std::uint64_t> parse_size_bytes(const std::string& text_in) {
  const std::string text = trim(text_in);
  std::size_t i = 0;
  unsigned __int128 mantissa = 0;
  std::uint64_t denominator = 1;
  bool digits = false;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    mantissa = mantissa * 10 + unsigned(text[i] - '0');
    if (mantissa > std::numeric_limits<std::uint64_t>::max()) return std::nullopt;
    digits = true;
    ++i;
  }
  if (i < text.size() && text[i] == '.') {
    ++i;
    bool frac = false;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      if (denominator > 1000000000000000000ULL / 10) return std::nullopt;
      mantissa = mantissa * 10 + unsigned(text[i] - '0');
      denominator *= 10;
      frac = true;
      ++i;
    }
    if (!frac) return std::nullopt;
    if (mantissa > std::numeric_limits<std::uint64_t>::max()) return std::nullopt;
  }
  if (!digits) return std::nullopt;
  while (i < text.size() && text[i] == ' ') ++i;
  const std::string unit = text.substr(i);
  static const std::vector<std::pair<std::string, std::uint64_t>> kUnits = {
      {"", 1},
      {"B", 1},
      {"KiB", 1ULL << 10},
      {"MiB", 1ULL << 20},
      {"GiB", 1ULL << 30},
      {"TiB", 1ULL << 40},
      {"kB", 1000ULL},
      {"KB", 1000ULL},
      {"MB", 1000ULL * 1000},
      {"GB", 1000ULL * 1000 * 1000},
      {"TB", 1000ULL * 1000 * 1000 * 1000},
  };
  for (const auto& [name, mult] : kUnits) {
    if (unit != name) continue;
    const unsigned __int128 scaled = mantissa * mult;
    if (scaled % denominator != 0) return std::nullopt;  // not a whole number of bytes
    const unsigned __int128 bytes = scaled / denominator;
    if (bytes > std::numeric_limits<std::uint64_t>::max()) return std::nullopt;
    return std::uint64_t(bytes);
  }
  return std::nullopt;
}

}  // namespace npu
