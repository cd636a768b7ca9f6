// A warning when mac_array.weight_dtype narrows only part of a model's weights
// (weight_dtype_warning.cpp).
#pragma once

#include <string>

#include "npu/compiler/driver/compiler.hpp"

namespace npu::compiler {

/// When mac_array.weight_dtype stores weights narrower (or wider) than mac_array.dtype, appends
/// a warning to r.warnings if some CONV/GEMM weight bytes stay in dtype (docs/config.md
/// "Precisions": only a GEMM's constant weight read by that GEMM alone is stored in
/// weight_dtype; CONV weights, and a weight another layer also reads, such as a tied embedding
/// table, stay in dtype). It gives, in bytes as stored in DDR, the weights in weight_dtype, the
/// CONV weights in dtype and the shared weights in dtype (naming the largest), so a "weight-only
/// int4 saves 1 %" is explained where it is printed. Nothing when every weight is narrowed or
/// weight_dtype is `same`.
void warn_weight_dtype_coverage(CompileResult& r, const HwConfig& hw, const std::string& where);

}  // namespace npu::compiler
