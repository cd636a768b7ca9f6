// The data path's int8 requantisation rules: npu::isa's (isa/include/npu/isa/cost/requant_math.hpp),
// shared with the compiler and the quantised reference interpreter.
#pragma once

#include "npu/isa/cost/requant_math.hpp"

namespace npu::hw::functional {
using isa::multiply_by_quantized_multiplier;
using isa::quantize_multiplier;
using isa::requantize;
using isa::rounding_divide_by_pot;
using isa::saturating_rounding_doubling_high_mul;
}  // namespace npu::hw::functional
