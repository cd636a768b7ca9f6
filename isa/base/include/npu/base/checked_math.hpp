// Checked size and count arithmetic. Every product or sum of user-given sizes (tensor
// shapes, MAC counts, byte counts, tile sizes, queue sizes) goes through these, so that a
// value that does not fit is an error that names the operands and the limit instead of a
// silently wrapped number (a CONV with hin = win = 2^30 once reported "0 MACs" and then
// hung the simulator).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>

namespace npu {

constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();
constexpr std::int64_t kI64Max = std::numeric_limits<std::int64_t>::max();

/// a x b. Throws npu::ConfigError "WHAT: A x B exceeds the limit of LIMIT" when the exact
/// product is above `limit` (or does not fit in 64 bits). `what` names the quantity
/// ("CONV MACs", "mac_array.rows x cols x dtype bytes").
std::uint64_t checked_mul(std::uint64_t a, std::uint64_t b, std::string_view what, std::uint64_t limit = kU64Max);

/// a + b, with the same error as checked_mul ("A + B exceeds ...").
std::uint64_t checked_add(std::uint64_t a, std::uint64_t b, std::string_view what, std::uint64_t limit = kU64Max);

/// The product of all `factors`; the error lists every factor ("16 x 1073741824 x 1073741824
/// x 16 exceeds the limit of 18446744073709551615 (2^64 - 1)").
std::uint64_t checked_product(std::initializer_list<std::uint64_t> factors, std::string_view what,
                              std::uint64_t limit = kU64Max);

/// Signed variants for int64 quantities (e.g. ONNX dimensions); the limit is INT64_MAX.
std::int64_t checked_mul_i64(std::int64_t a, std::int64_t b, std::string_view what);
std::int64_t checked_add_i64(std::int64_t a, std::int64_t b, std::string_view what);

/// "18446744073709551615 (2^64 - 1)" for the 64-bit maxima, "2^k" suffixes for powers of
/// two, the plain number otherwise: how limits are written in messages.
std::string describe_limit(std::uint64_t limit);

}  // namespace npu
