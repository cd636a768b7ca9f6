#include "npu/base/checked_math.hpp"

#include <fmt/format.h>

#include "npu/base/config_error.hpp"

namespace npu {

std::string describe_limit(std::uint64_t limit) {
  if (limit == kU64Max) return fmt::format("{} (2^64 - 1)", limit);
  if (limit == std::uint64_t(kI64Max)) return fmt::format("{} (2^63 - 1)", limit);
  if (limit == std::uint64_t(std::numeric_limits<std::int32_t>::max())) return fmt::format("{} (2^31 - 1)", limit);
  if (limit != 0 && (limit & (limit - 1)) == 0) return fmt::format("{} (2^{})", limit, __builtin_ctzll(limit));
  return fmt::format("{}", limit);
}

namespace {

[[noreturn]] void overflow(std::string_view what, const std::string& expr, std::uint64_t limit) {
  throw ConfigError(fmt::format("{}: {} exceeds the limit of {}", what, expr, describe_limit(limit)));
}

}  // namespace

std::uint64_t checked_mul(std::uint64_t a, std::uint64_t b, std::string_view what, std::uint64_t limit) {
  std::uint64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r) || r > limit) overflow(what, fmt::format("{} x {}", a, b), limit);
  return r;
}

std::uint64_t checked_add(std::uint64_t a, std::uint64_t b, std::string_view what, std::uint64_t limit) {
  std::uint64_t r = 0;
  if (__builtin_add_overflow(a, b, &r) || r > limit) overflow(what, fmt::format("{} + {}", a, b), limit);
  return r;
}

std::uint64_t checked_product(std::initializer_list<std::uint64_t> factors, std::string_view what,
                              std::uint64_t limit) {
  std::uint64_t r = 1;
  bool bad = false;
  for (std::uint64_t f : factors) bad = __builtin_mul_overflow(r, f, &r) || bad;
  if (bad || r > limit) {
    // A zero factor makes the exact product 0; only report when the true product is too large.
    bool has_zero = false;
    for (std::uint64_t f : factors) has_zero = has_zero || f == 0;
    if (has_zero) return 0;
    std::string expr;
    for (std::uint64_t f : factors) expr += (expr.empty() ? "" : " x ") + std::to_string(f);
    overflow(what, expr, limit);
  }
  return r;
}

std::int64_t checked_mul_i64(std::int64_t a, std::int64_t b, std::string_view what) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) overflow(what, fmt::format("{} x {}", a, b), std::uint64_t(kI64Max));
  return r;
}

std::int64_t checked_add_i64(std::int64_t a, std::int64_t b, std::string_view what) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) overflow(what, fmt::format("{} + {}", a, b), std::uint64_t(kI64Max));
  return r;
}

}  // namespace npu
