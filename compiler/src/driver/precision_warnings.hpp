// Warnings when a precision key of mac_array applies to less of the program than its name says:
// weight_dtype to part of the weights, kv_cache_dtype to no KV append (precision_warnings.cpp).
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

/// When mac_array.kv_cache_dtype gives another element width than mac_array.dtype and the
/// program has no KV-cache append (lowering refuses one: isa::kv_cache_width_refusal), appends a
/// warning that the key has no effect here: a prefill's K/V outputs (present.*) and every other
/// tensor are in the array's dtype (new-user test: gpt2 prefill with kv_cache_dtype int8 wrote its
/// cache at 2 B an element without a word, where the decode and `npu llm` refuse the config).
void warn_kv_cache_dtype_unused(CompileResult& r, const HwConfig& hw, const std::string& where);

}  // namespace npu::compiler
