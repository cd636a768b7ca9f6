// The one KV-cache precision the back end cannot build yet: a cache whose element width
// (mac_array.kv_cache_dtype) differs from the array's dtype needs a converting append and
// narrower attention reads (docs/config.md "Precisions"). Lowering refuses such a KV append,
// and `npu llm` refuses the config before any prefill runs, with the same words.
#pragma once

#include <string>

#include "npu/isa/cost/precision.hpp"

namespace npu::isa {

/// Why a KV append cannot be compiled for `a` ("" when it can): "mac_array.kv_cache_dtype gives
/// the KV cache K B an element but the array's dtype E B; a KV cache of another width than the
/// array's is not modelled yet".
inline std::string kv_cache_width_refusal(const MacArrayConfig& a) {
  const int kv = kv_cache_elem_bytes(a), e = dtype_bytes(a.dtype);
  if (kv == e) return "";
  return "mac_array.kv_cache_dtype gives the KV cache " + std::to_string(kv) + " B an element but the array's dtype " +
         std::to_string(e) + " B; a KV cache of another width than the array's is not modelled yet";
}

}  // namespace npu::isa
