// The quantised reference's own int8 rules (compiler/src/reference/quantised_rules.hpp),
// each on numbers worked out by hand in the comments from the TFLite / gemmlowp / ONNX
// definitions (docs/functional.md, "int8 execution"), never from the code's output.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "reference/quantised_rules.hpp"

namespace npu::compiler::qref {
namespace {

TEST(QuantisedRules, QuantizeMultiplierIsFrexpRoundedToQ31) {
  // 0.2 = 0.8 x 2^-2; 0.8 x 2^31 = 1717986918.4 -> 1717986918.
  Multiplier m = quantize_multiplier(0.2);
  EXPECT_EQ(m.m, 1717986918);
  EXPECT_EQ(m.shift, -2);
  // 1.0 = 0.5 x 2^1 -> 2^30, shift 1; 1.25 = 0.625 x 2^1 -> 0.625 x 2^31 = 1342177280.
  m = quantize_multiplier(1.0);
  EXPECT_EQ(m.m, 1 << 30);
  EXPECT_EQ(m.shift, 1);
  EXPECT_EQ(quantize_multiplier(1.25).m, 1342177280);
  // 0 and anything below 2^-32 (frexp exponent < -31) give 0, 0.
  EXPECT_EQ(quantize_multiplier(0.0).m, 0);
  EXPECT_EQ(quantize_multiplier(1e-12).m, 0);
  EXPECT_THROW(quantize_multiplier(-1.0), std::invalid_argument);
}

TEST(QuantisedRules, HighMulRoundsTiesUpAndSaturatesTheOneOverflow) {
  // 3 x 2^30 / 2^31 = 1.5 -> (3 x 2^30 + 2^30) / 2^31 = 2; -1.5 -> (-3 x 2^30 + 1 - 2^30) / 2^31
  // = -1.99999... truncated to -1: gemmlowp's ties go toward +infinity.
  EXPECT_EQ(doubling_high_mul(3, 1 << 30), 2);
  EXPECT_EQ(doubling_high_mul(-3, 1 << 30), -1);
  constexpr std::int32_t kMin = std::numeric_limits<std::int32_t>::min();
  EXPECT_EQ(doubling_high_mul(kMin, kMin), std::numeric_limits<std::int32_t>::max());
}

TEST(QuantisedRules, DivideByPowerOfTwoRoundsTiesAwayFromZero) {
  EXPECT_EQ(divide_by_pot(5, 1), 3);    // 2.5
  EXPECT_EQ(divide_by_pot(-5, 1), -3);  // -2.5
  EXPECT_EQ(divide_by_pot(7, 2), 2);    // 1.75
  EXPECT_EQ(divide_by_pot(-6, 2), -2);  // -1.5
  EXPECT_EQ(divide_by_pot(-5, 2), -1);  // -1.25
  EXPECT_EQ(divide_by_pot(9, 0), 9);
}

TEST(QuantisedRules, ScaleByIsTfliteMultiplyByQuantizedMultiplier) {
  // 100 x 0.2: high mul 100 x 1717986918 / 2^31 = 79.99999998 -> 80, then / 2^2 = 20.
  EXPECT_EQ(scale_by(100, quantize_multiplier(0.2)), 20);
  // 10 x 0.25 (2^30, shift -1): high mul 5, 5 / 2 = 2.5 -> 3 (away from zero).
  EXPECT_EQ(scale_by(10, quantize_multiplier(0.25)), 3);
  // -10 x 0.25: high mul (-10 x 2^30 + 1 - 2^30) / 2^31 = -5.4999 -> -5; -5 / 2 = -2.5 -> -3.
  EXPECT_EQ(scale_by(-10, quantize_multiplier(0.25)), -3);
  // 12 x 1.25 (shift 1): 24 x 0.625 = 15 exactly.
  EXPECT_EQ(scale_by(12, quantize_multiplier(1.25)), 15);
}

TEST(QuantisedRules, QuantiseIsOnnxQuantizeLinear) {
  const QuantGrid g{0.5, 3};
  EXPECT_EQ(quantise(1.25, g), 5);    // 2.5 -> 2 (half to even), + 3
  EXPECT_EQ(quantise(1.75, g), 7);    // 3.5 -> 4, + 3
  EXPECT_EQ(quantise(-1.25, g), 1);   // -2.5 -> -2, + 3
  EXPECT_EQ(quantise(100.0, g), 127);  // 203 saturated
  EXPECT_EQ(quantise(-100.0, g), -128);
  EXPECT_EQ(quantise(std::nan(""), g), 3);  // NaN: the real 0
  EXPECT_EQ(quantise(INFINITY, g), 127);
  EXPECT_EQ(quantise(-INFINITY, g), -128);
  EXPECT_DOUBLE_EQ(dequantise(7, g), 2.0);  // (7 - 3) x 0.5
}

TEST(QuantisedRules, ActivationRangeIsTflitesWithHalfAwayFromZero) {
  int lo = 0, hi = 0;
  ASSERT_TRUE(activation_range("Relu", 0, 0, {0.1, -5}, lo, hi));
  EXPECT_EQ(lo, -5);
  EXPECT_EQ(hi, 127);
  // Clip(0, 6) on (0.05, -128): [-128 + 0, -128 + 120] = [-128, -8].
  ASSERT_TRUE(activation_range("Clip", 0, 6, {0.05, -128}, lo, hi));
  EXPECT_EQ(lo, -128);
  EXPECT_EQ(hi, -8);
  // Clip(0.125, 0.625) on (0.25, 0): round(0.5) = 1 and round(2.5) = 3 (away from zero; half
  // to even would give 0 and 2). Binary-exact values: 0.075 / 0.05 is 1.4999999999999998.
  ASSERT_TRUE(activation_range("Clip", 0.125, 0.625, {0.25, 0}, lo, hi));
  EXPECT_EQ(lo, 1);
  EXPECT_EQ(hi, 3);
  EXPECT_FALSE(activation_range("Clip", 1, 0, {0.05, 0}, lo, hi));
}

TEST(QuantisedRules, AddIsTflitesWithLeftShift20) {
  // a on (0.5, 0), b on (0.25, 10), y on (1, -5). 2 max(s) = 1: a x 0.5 -> (2^30, 0),
  // b x 0.25 -> (2^30, -1), out x 2^-20 -> (2^30, -19).
  const AddRule add({0.5, 0}, {0.25, 10}, {1.0, -5});
  // a = 3 (1.5), b = 14 (1.0): a' = 3 x 2^20 x 0.5 = 1572864, b' = 4 x 2^20 x 0.25 = 1048576,
  // sum 2621440 = 2.5 x 2^20; x 2^-20 = 2.5 -> 3 (away from zero; ONNX would round to 2), - 5.
  EXPECT_EQ(add(3, 14), -2);
  // a = -3 (-1.5), b = 10 (0): sum -1572864; high mul by 2^30 -> -786432; / 2^19 = -1.5 -> -2, - 5.
  EXPECT_EQ(add(-3, 10), -7);
  // Saturation: 127 (63.5) + 127 (29.25) = 92.75 -> 93 - 5 = 88; 127 + 127 on y (0.25, 0) saturates.
  EXPECT_EQ(add(127, 127), 88);
  EXPECT_EQ(AddRule({0.5, 0}, {0.25, 10}, {0.25, 0})(127, 127), 127);
}

TEST(QuantisedRules, MulIsTflitesOneMultiplier) {
  // a = 3 on (0.5, 0), b = 14 on (0.25, 10): 3 x 4 = 12; M = 0.5 x 0.25 / 0.1 = 1.25: 15, + zp 2.
  EXPECT_EQ(MulRule({0.5, 0}, {0.25, 10}, {0.1, 2})(3, 14), 17);
  // (-3)(4) x 1.25 = -15, + 2.
  EXPECT_EQ(MulRule({0.5, 0}, {0.25, 10}, {0.1, 2})(-3, 14), -13);
}

TEST(QuantisedRules, AverageRoundsHalfAwayFromZero) {
  EXPECT_EQ(average(7, 2), 4);    // 3.5
  EXPECT_EQ(average(-7, 2), -4);  // -3.5
  EXPECT_EQ(average(5, 3), 2);    // 1.67: (5 + 1) / 3
  EXPECT_EQ(average(-4, 3), -1);  // -1.33: (-4 - 1) / 3 = -1
  EXPECT_EQ(average(300, 1), 127);
}

TEST(QuantisedRules, BatchNormIsADepthwiseOneByOneConv) {
  // gamma 2, var 3, eps 1: a = 2 / sqrt(4) = 1; B 0.5, mean 0.25: shift = 0.25. s_w = 1/127,
  // w = 127; s_x = 0.125: b = 0.25 / (0.125 / 127) = 254; s_y = 0.25: M = 0.125 / 127 / 0.25 =
  // 1/254. x = 10 on zp 2: (8 x 127 + 254) / 254 = 5, + zp_y -3 = 2. In reals: 1.0 x 1 + 0.25 =
  // 1.25 = 5 steps of 0.25.
  const BatchNormChannel ch(2.0, 0.5, 0.25, 3.0, 1.0, 0.125, 0.25);
  EXPECT_EQ(ch.w, 127);
  EXPECT_EQ(ch.b, 254);
  EXPECT_EQ(ch(10, 2, -3), 2);
  // A negative scale: gamma -2 gives a = -1, w = -127, shift = 0.5 + 0.25 = 0.75, b = 762;
  // x = 10: (-1016 + 762) / 254 = -1, - 3 = -4 (real: -1 + 0.75 = -0.25, one step down).
  const BatchNormChannel neg(-2.0, 0.5, 0.25, 3.0, 1.0, 0.125, 0.25);
  EXPECT_EQ(neg.w, -127);
  EXPECT_EQ(neg(10, 2, -3), -4);
}

TEST(QuantisedRules, SigmoidPerElementInDouble) {
  // x on (1/16, 0), y on (1/256, -128) (TFLite's Logistic output grid):
  //   q = 16: x = 1, sigmoid = 0.7310586, x 256 = 187.151 -> 187, - 128 = 59;
  //   q = -16: 0.2689414 x 256 = 68.849 -> 69, -59;  q = 0: 0.5 -> 128 -> 0;
  //   q = 127: x = 7.9375, 0.99964303 x 256 = 255.909 -> 256 -> 128, saturated to 127;
  //   q = -128: x = -8, 3.3535e-4 x 256 = 0.086 -> 0, -128.
  const QuantGrid in{1.0 / 16, 0}, out{1.0 / 256, -128};
  const UnaryFunction f{"Sigmoid"};
  auto q = [&](int x) { return int(quantise(f(dequantise(std::int8_t(x), in)), out)); };
  EXPECT_EQ(q(16), 59);
  EXPECT_EQ(q(-16), -59);
  EXPECT_EQ(q(0), 0);
  EXPECT_EQ(q(127), 127);
  EXPECT_EQ(q(-128), -128);
}

TEST(QuantisedRules, HardSwishAndFriendsPerElementInDouble) {
  // HardSwish x max(0, min(1, x/6 + 1/2)), x on (0.1, 0), y on (0.05, 0):
  //   q = 10: 1 x 2/3 = 0.6667 / 0.05 = 13.33 -> 13;  q = 30: 3 x 1 = 3 -> 60;
  //   q = -30: -3 x 0 -> 0;  q = -15: -1.5 x 0.25 = -0.375 -> -7.5 -> -8 (half to even).
  const QuantGrid in{0.1, 0}, out{0.05, 0};
  auto q = [&](const UnaryFunction& f, int x) { return int(quantise(f(dequantise(std::int8_t(x), in)), out)); };
  const UnaryFunction hs{"HardSwish"};
  EXPECT_EQ(q(hs, 10), 13);
  EXPECT_EQ(q(hs, 30), 60);
  EXPECT_EQ(q(hs, -30), 0);
  EXPECT_EQ(q(hs, -15), -8);
  // LeakyRelu alpha 0.5: q = -20 -> -2 x 0.5 = -1 -> -20.  Sqrt(-1): NaN -> zero point 0.
  UnaryFunction lr{"LeakyRelu"};
  lr.alpha = 0.5;
  EXPECT_EQ(q(lr, -20), -20);
  EXPECT_EQ(q(UnaryFunction{"Sqrt"}, -10), 0);
  // Reciprocal(0) = +inf saturates; Pow by 2: q = 15 -> 1.5^2 = 2.25 -> 45.
  EXPECT_EQ(q(UnaryFunction{"Reciprocal"}, 0), 127);
  UnaryFunction sq{"Pow"};
  sq.exponent = 2;
  EXPECT_EQ(q(sq, 15), 45);
  // Gelu (erf form) at x = 1: 0.5 (1 + erf(0.70711)) = 0.841345 -> 16.83 -> 17.
  EXPECT_EQ(q(UnaryFunction{"Gelu"}, 10), 17);
}

}  // namespace
}  // namespace npu::compiler::qref
