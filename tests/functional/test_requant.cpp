// int8 requantisation rules (gemmlowp / TFLite), on values worked out by hand from the
// definitions in requant.hpp.
#include <gtest/gtest.h>

#include <limits>

#include "npu/hw/functional/requant.hpp"

namespace {

namespace fn = npu::hw::functional;

TEST(Requant, DoublingHighMulRoundsAndSaturates) {
  // 0.5 x 0.5 in Q31: (2^30 x 2^30 + 2^30) / 2^31 = 2^29 + 0.5 -> truncated 2^29 (= 0.25).
  EXPECT_EQ(fn::saturating_rounding_doubling_high_mul(1 << 30, 1 << 30), 1 << 29);
  // 3 x 2^30 / 2^31 = 1.5 -> (3 x 2^30 + 2^30) / 2^31 = 2 (tie away from zero).
  EXPECT_EQ(fn::saturating_rounding_doubling_high_mul(3, 1 << 30), 2);
  // -1.5: (-3 x 2^30 + 1 - 2^30) / 2^31 = -4294967295 / 2147483648 = -1.99999999953, which
  // C++ truncates toward zero to -1. So gemmlowp's ties go toward +infinity (1.5 -> 2,
  // -1.5 -> -1), not away from zero: the nudge is 2^30 - 1 below zero, 2^30 above.
  EXPECT_EQ(fn::saturating_rounding_doubling_high_mul(-3, 1 << 30), -1);
  constexpr std::int32_t kMin = std::numeric_limits<std::int32_t>::min();
  EXPECT_EQ(fn::saturating_rounding_doubling_high_mul(kMin, kMin), std::numeric_limits<std::int32_t>::max());
}

TEST(Requant, RoundingDivideByPowerOfTwoTiesAwayFromZero) {
  EXPECT_EQ(fn::rounding_divide_by_pot(5, 1), 3);    //  2.5  -> 3
  EXPECT_EQ(fn::rounding_divide_by_pot(-5, 1), -3);  // -2.5  -> -3
  EXPECT_EQ(fn::rounding_divide_by_pot(6, 2), 2);    //  1.5  -> 2
  EXPECT_EQ(fn::rounding_divide_by_pot(-6, 2), -2);  // -1.5  -> -2
  EXPECT_EQ(fn::rounding_divide_by_pot(-5, 2), -1);  // -1.25 -> -1
  EXPECT_EQ(fn::rounding_divide_by_pot(7, 0), 7);
  EXPECT_THROW(fn::rounding_divide_by_pot(1, 32), std::invalid_argument);
}

TEST(Requant, QuantizeMultiplierFollowsFrexp) {
  std::int32_t m = 0;
  int s = 0;
  fn::quantize_multiplier(0.5, m, s);  // 0.5 = 0.5 x 2^0 -> 2^30, shift 0
  EXPECT_EQ(m, 1 << 30);
  EXPECT_EQ(s, 0);
  fn::quantize_multiplier(0.1, m, s);  // 0.1 = 0.8 x 2^-3 -> round(0.8 x 2^31) = 1717986918
  EXPECT_EQ(m, 1717986918);
  EXPECT_EQ(s, -3);
  fn::quantize_multiplier(3.0, m, s);  // 3 = 0.75 x 2^2 -> round(0.75 x 2^31) = 1610612736
  EXPECT_EQ(m, 1610612736);
  EXPECT_EQ(s, 2);
  fn::quantize_multiplier(0.0, m, s);
  EXPECT_EQ(m, 0);
  EXPECT_EQ(s, 0);
  EXPECT_THROW(fn::quantize_multiplier(-1.0, m, s), std::invalid_argument);
}

TEST(Requant, MultiplyAndRequantizeSaturateToInt8) {
  // 1000 x 0.1: SRDHM(1000, 1717986918) = (1717986918000 + 2^30) / 2^31 = 800.49.. -> 800,
  // then 800 / 2^3 = 100.
  EXPECT_EQ(fn::multiply_by_quantized_multiplier(1000, 1717986918, -3), 100);
  // 7 x 0.75 = 5.25: (7 x 1610612736 + 2^30) / 2^31 = 5.75 -> 5.
  EXPECT_EQ(fn::multiply_by_quantized_multiplier(7, 1610612736, 0), 5);
  // 7 x 3 = 21: left shift 2 (28), x 0.75 -> (28 x 1610612736 + 2^30) / 2^31 = 21.5 -> 21.
  EXPECT_EQ(fn::multiply_by_quantized_multiplier(7, 1610612736, 2), 21);
  // acc 1000 x 0.1 + zero point -10 = 90; acc 10000 -> 1000 - 10 = 990 saturates to 127;
  // acc -10000 -> -1010 saturates to -128; a fused ReLU with zero point -10 clamps at -10.
  EXPECT_EQ(fn::requantize(1000, 1717986918, -3, -10), 90);
  EXPECT_EQ(fn::requantize(10000, 1717986918, -3, -10), 127);
  EXPECT_EQ(fn::requantize(-10000, 1717986918, -3, -10), -128);
  EXPECT_EQ(fn::requantize(-1000, 1717986918, -3, -10, -10, 127), -10);
}

}  // namespace
