// Element sizes of LLM precisions (mac_array.weight_dtype, weight_group, kv_cache_dtype;
// docs/config.md "Precisions"). Pure arithmetic, header-only, no SystemC.
//
// Weights: int8 1 B, fp16 2 B, int4 1/2 B. A weight type narrower than the array's dtype is
// weight-only quantisation, widened to the array's type on the fly, with fp16 scales that count
// as weight bytes:
//   int4 (W4A16): one fp16 scale per weight_group weights along K and output column:
//                 bytes = ceil(K*N/2) + ceil(K/group) * N * 2   (AWQ/GPTQ layout, group 128)
//   int8 under an fp16 or fp32 array (W8A16): one fp16 scale per output column (LLM.int8's
//                 vector-wise scale): bytes = K*N + N*2
//   fp16 under an fp32 array: bytes = K*N*2 (fp16 widens to fp32 exactly: no scale)
//   same width as the array: bytes = K*N*dtype_bytes, no scales (int8 arrays keep their
//                 per-channel requantisation parameters as before, outside the weight tensor).
// The MAC array runs at the rate the config gives for its own dtype (rows x cols x
// macs_per_pe_per_cycle MACs a cycle): W4A16 runs at the array's fp16 rate.
#pragma once

#include <cstdint>
#include <string>

#include "npu/hw_config/hw_config.hpp"

namespace npu::isa {

/// The weight type in effect: weight_dtype, or for `same` the array's dtype.
inline WeightDType effective_weight_dtype(const MacArrayConfig& a) {
  if (a.weight_dtype != WeightDType::Same) return a.weight_dtype;
  return a.dtype == DType::Fp16 ? WeightDType::Fp16 : a.dtype == DType::Int8 ? WeightDType::Int8 : WeightDType::Same;
}

/// Bits of one weight element: 4, 8, 16, or 32 (an fp32 array's `same`).
inline int weight_elem_bits(const MacArrayConfig& a) {
  switch (effective_weight_dtype(a)) {
    case WeightDType::Int4: return 4;
    case WeightDType::Int8: return 8;
    case WeightDType::Fp16: return 16;
    case WeightDType::Same: break;
  }
  return 8 * dtype_bytes(a.dtype);
}

/// Bytes of the fp16 scales of a K x N weight matrix (file comment): 0 unless weight-only.
inline std::uint64_t weight_scale_bytes(std::uint64_t k, std::uint64_t n, const MacArrayConfig& a) {
  const int bits = weight_elem_bits(a);
  // fp16 weights widen to fp32 exactly: no scale.
  if (bits >= 8 * dtype_bytes(a.dtype) || effective_weight_dtype(a) == WeightDType::Fp16) return 0;
  if (bits == 4) {
    const std::uint64_t g = std::uint64_t(a.weight_group > 0 ? a.weight_group : 1);
    return (k + g - 1) / g * n * 2;
  }
  return n * 2;
}

/// Bytes of a K x N weight matrix in the weight type, scales included (file comment).
inline std::uint64_t weight_matrix_bytes(std::uint64_t k, std::uint64_t n, const MacArrayConfig& a) {
  return (k * n * std::uint64_t(weight_elem_bits(a)) + 7) / 8 + weight_scale_bytes(k, n, a);
}

/// Bytes of one KV-cache element: kv_cache_dtype, or for `same` the array's dtype.
inline int kv_cache_elem_bytes(const MacArrayConfig& a) {
  switch (a.kv_cache_dtype) {
    case KvCacheDType::Int8: return 1;
    case KvCacheDType::Fp16: return 2;
    case KvCacheDType::Same: break;
  }
  return dtype_bytes(a.dtype);
}

/// Why a run with data cannot compute `a`'s precisions ("" when it can): the functional models
/// compute in the array's dtype only, so a weight or KV type other than it is timing-only.
inline std::string data_run_refusal(const MacArrayConfig& a) {
  std::string why;
  if (weight_elem_bits(a) != 8 * dtype_bytes(a.dtype))
    why = std::string("mac_array.weight_dtype is ") + to_string(a.weight_dtype);
  else if (kv_cache_elem_bytes(a) != dtype_bytes(a.dtype))
    why = std::string("mac_array.kv_cache_dtype is ") + to_string(a.kv_cache_dtype);
  if (why.empty()) return why;
  return why + " but mac_array.dtype is " + to_string(a.dtype) +
         ": runs with data compute in the array's dtype only, so this precision is timing-only (npu simulate "
         "without data, npu compile); remove the key or set it to 'same' to run with data";
}

}  // namespace npu::isa
