// int8 requantisation arithmetic (requant_math.hpp).
#include "npu/isa/cost/requant_math.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace npu::isa {

std::int32_t saturating_rounding_doubling_high_mul(std::int32_t a, std::int32_t b) {
  const bool overflow = a == b && a == std::numeric_limits<std::int32_t>::min();
  const std::int64_t ab = std::int64_t(a) * std::int64_t(b);
  const std::int32_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
  const std::int32_t high = std::int32_t((ab + nudge) / (std::int64_t(1) << 31));
  return overflow ? std::numeric_limits<std::int32_t>::max() : high;
}

std::int32_t rounding_divide_by_pot(std::int32_t x, int exponent) {
  if (exponent < 0 || exponent > 31)
    throw std::invalid_argument("rounding_divide_by_pot: exponent " + std::to_string(exponent) + " not in [0, 31]");
  const std::int32_t mask = std::int32_t((std::int64_t(1) << exponent) - 1);
  const std::int32_t remainder = x & mask;
  const std::int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

std::int32_t multiply_by_quantized_multiplier(std::int32_t x, std::int32_t multiplier, int shift) {
  const int left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
  // TFLite multiplies by (1 << left) in int32 (wrapping on overflow is its caller's concern);
  // done in 64 bits and saturated here so that the result is defined.
  const std::int64_t shifted = std::int64_t(x) * (std::int64_t(1) << left);
  const std::int32_t xs = std::int32_t(std::clamp<std::int64_t>(shifted, std::numeric_limits<std::int32_t>::min(),
                                                                 std::numeric_limits<std::int32_t>::max()));
  return rounding_divide_by_pot(saturating_rounding_doubling_high_mul(xs, multiplier), right);
}

void quantize_multiplier(double real, std::int32_t& multiplier, int& shift) {
  if (!(real >= 0.0)) throw std::invalid_argument("quantize_multiplier: multiplier must be >= 0");
  if (real == 0.0) {
    multiplier = 0;
    shift = 0;
    return;
  }
  const double q = std::frexp(real, &shift);
  std::int64_t q_fixed = std::int64_t(std::round(q * double(std::int64_t(1) << 31)));
  if (q_fixed == (std::int64_t(1) << 31)) {
    q_fixed /= 2;
    ++shift;
  }
  if (shift < -31) {
    shift = 0;
    q_fixed = 0;
  }
  multiplier = std::int32_t(q_fixed);
}

std::int8_t requantize(std::int32_t acc, std::int32_t multiplier, int shift, std::int32_t out_zero_point,
                       std::int32_t lo, std::int32_t hi) {
  const std::int64_t v = std::int64_t(multiply_by_quantized_multiplier(acc, multiplier, shift)) + out_zero_point;
  return std::int8_t(std::clamp<std::int64_t>(v, std::max(lo, -128), std::min(hi, 127)));
}

std::int32_t scale_shift_acc(std::int32_t x, std::int32_t in_zero_point, std::int32_t w, std::int32_t b) {
  const std::int64_t acc = (std::int64_t(x) - in_zero_point) * w + b;
  return std::int32_t(std::clamp<std::int64_t>(acc, std::numeric_limits<std::int32_t>::min(),
                                              std::numeric_limits<std::int32_t>::max()));
}

}  // namespace npu::isa
