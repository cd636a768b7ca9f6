// The `mac_array` keys of LLM inference: how a GEMV (decode, M = batch) maps, and the weight and
// KV-cache element types (docs/config.md "mac_array", "Precisions").
#include "load/loader.hpp"

namespace npu::config_loader {

// Allowed values, in the order docs/config.md lists them (and of the enums in hw_config.hpp).
const std::vector<std::string> kGemvMappings = {"dataflow", "weight_stationary", "output_stationary", "vector_unit",
                                                "auto"};
const std::vector<std::string> kWeightDtypes = {"same", "int8", "fp16", "int4"};
const std::vector<std::string> kKvCacheDtypes = {"same", "int8", "fp16"};

namespace {

// The array multiplies in `dtype`: weights are widened to it on the fly (weight-only
// quantisation), never narrowed, and int4 is the W4A16 scheme (group scales in fp16).
void check_weight_dtype(Loader& in, const Section& s, const MacArrayConfig& mac) {
  const char* have = to_string(mac.dtype);
  if (mac.weight_dtype == WeightDType::Int4 && mac.dtype != DType::Fp16)
    in.fail(in.vmark(s, "weight_dtype"),
            fmt::format("'mac_array.weight_dtype' = int4 needs 'mac_array.dtype: fp16', but dtype is {}", have),
            "  int4 is weight-only quantisation W4A16: the int4 weights are dequantised to fp16 with one fp16 scale "
            "per 'weight_group' weights and the array multiplies in fp16 (docs/config.md \"Precisions\"); set "
            "'dtype: fp16' or use 'weight_dtype: int8'");
  if (mac.weight_dtype == WeightDType::Fp16 && mac.dtype == DType::Int8)
    in.fail(in.vmark(s, "weight_dtype"),
            "'mac_array.weight_dtype' = fp16 needs 'mac_array.dtype' fp16 or fp32, but dtype is int8",
            "  weights are widened to the array's type, never narrowed: an int8 array cannot multiply fp16 weights; "
            "set 'dtype: fp16' or 'weight_dtype: int8' (docs/config.md \"Precisions\")");
}

}  // namespace

void load_mac_array_llm_keys(Loader& in, const Section& s, MacArrayConfig& mac) {
  if (s.has("gemv_mapping"))
    mac.gemv_mapping = static_cast<GemvMapping>(in.get_enum(s, "gemv_mapping", kGemvMappings, "gemv_mapping"));
  if (s.has("gemv_max_m")) mac.gemv_max_m = in.get_int(s, "gemv_max_m", 1);
  if (s.has("weight_dtype")) {
    mac.weight_dtype = static_cast<WeightDType>(in.get_enum(s, "weight_dtype", kWeightDtypes, "weight_dtype"));
    check_weight_dtype(in, s, mac);
  }
  if (s.has("weight_group")) {
    mac.weight_group = in.get_int(s, "weight_group", 1);
    if (mac.weight_dtype != WeightDType::Int4)
      in.fail(in.vmark(s, "weight_group"), "'mac_array.weight_group' is set but 'mac_array.weight_dtype' is not int4",
              "  the group size is the number of int4 weights along K that share one fp16 scale; remove the key or "
              "set 'weight_dtype: int4' (docs/config.md \"Precisions\")");
  }
  if (s.has("kv_cache_dtype"))
    mac.kv_cache_dtype =
        static_cast<KvCacheDType>(in.get_enum(s, "kv_cache_dtype", kKvCacheDtypes, "kv_cache_dtype"));
}

}  // namespace npu::config_loader
