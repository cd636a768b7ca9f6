// int8 requantisation arithmetic (docs/functional.md, "int8 arithmetic"),
// bit-exact with gemmlowp's fixedpoint.h and TensorFlow Lite's
// MultiplyByQuantizedMultiplier / QuantizeMultiplier (tensorflow/lite/kernels/internal/
// common.h, quantization_util.cc). Shared by the hardware data path (hw_models/src/functional/
// int8_ops.cpp), the compiler (requantisation tables) and the quantised reference interpreter,
// so all three round alike. Plain C++ (in npu_isa, which all of them link).
#pragma once

#include <cstdint>

namespace npu::isa {

/// gemmlowp SaturatingRoundingDoublingHighMul: a x b / 2^31 rounded to nearest, computed as
/// (a*b + (a*b >= 0 ? 2^30 : 1 - 2^30)) / 2^31 in 64 bits (C++ division truncates toward
/// zero), so exact ties go toward +infinity (1.5 -> 2, -1.5 -> -1); the one overflow case
/// a = b = -2^31 saturates to 2^31 - 1.
std::int32_t saturating_rounding_doubling_high_mul(std::int32_t a, std::int32_t b);

/// gemmlowp RoundingDivideByPOT: x / 2^exponent rounded to nearest, ties away from zero
/// (exponent in [0, 31]; throws std::invalid_argument otherwise).
std::int32_t rounding_divide_by_pot(std::int32_t x, int exponent);

/// TFLite MultiplyByQuantizedMultiplier: x x M x 2^shift with M = multiplier / 2^31 in [0.5, 1):
/// left shift (shift > 0) before the high multiply, rounding right shift (shift < 0) after.
std::int32_t multiply_by_quantized_multiplier(std::int32_t x, std::int32_t multiplier, int shift);

/// TFLite QuantizeMultiplier: real = q x 2^shift with q in [0.5, 1) (frexp), multiplier =
/// round(q x 2^31) (std::round, ties away from zero), 2^31 -> 2^30 with shift + 1; shift < -31
/// gives 0, 0. real must be >= 0 (throws std::invalid_argument otherwise).
void quantize_multiplier(double real, std::int32_t& multiplier, int& shift);

/// Output of an int8 layer from its int32 accumulator (bias already added):
/// clamp(multiply_by_quantized_multiplier(acc, multiplier, shift) + out_zero_point, lo, hi),
/// with [lo, hi] inside [-128, 127] (a fused ReLU/ReLU6 narrows it; TFLite's fused activation).
std::int8_t requantize(std::int32_t acc, std::int32_t multiplier, int shift, std::int32_t out_zero_point,
                       std::int32_t lo = -128, std::int32_t hi = 127);

/// Accumulator of an int8 per-channel affine map (ACT scale_shift, e.g. an unfolded
/// BatchNormalization, quantised as TFLite quantises a depthwise 1x1 conv):
/// (x - in_zero_point) x w + b, computed in 64 bits and saturated to int32 so that any table
/// values give a defined result.
std::int32_t scale_shift_acc(std::int32_t x, std::int32_t in_zero_point, std::int32_t w, std::int32_t b);

}  // namespace npu::isa
