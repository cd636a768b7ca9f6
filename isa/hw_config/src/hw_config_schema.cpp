// The config file's schema: every map and its keys, in the order of docs/config.md.
#include "hw_config_schema.hpp"

#include "npu/hw_config/hw_config.hpp"

namespace npu {

std::vector<std::string> detail::act_latency_keys() {
  return {"default",
          // ActOp, the historical order
          "relu", "clip", "leaky_relu", "sigmoid", "silu", "hard_sigmoid", "hard_swish", "scale_shift",
          // EltwiseOp add, mul; PoolOp max, avg, global_avg
          "add", "mul", "max", "avg", "global_avg",
          // ActOp added later
          "erf", "exp", "sqrt", "reciprocal", "tanh", "gelu", "abs", "neg", "pow", "identity", "softmax", "layer_norm",
          // EltwiseOp added later (max and pow are already listed)
          "sub", "div", "min", "rsub", "rdiv",
          // ActOp added later still (issue 30)
          "gelu_tanh", "rms_norm", "softmax_online",
          // ActOp added for the rotary embedding (issue 30, fuse-rope)
          "rope",
          // PoolOp avg_pad (AveragePool count_include_pad=1; unset: avg's latency)
          "avg_pad",
          // EltwiseOp lerp, lerp_round (the int8 bilinear Resize's integer blend)
          "lerp", "lerp_round",
          // ActOp and EltwiseOp of detection post-processing (issue 28 kind 8)
          "log", "floor", "ceil", "not", "trunc", "to_bool",
          "equal", "less", "greater", "less_equal", "greater_equal", "and", "or", "xor", "mod", "fmod"};
}

const std::vector<HwConfigSection>& hw_config_schema() {
  static const std::vector<HwConfigSection> kSchema = {
      {"", {"npu", "mac_array", "sram", "act_unit", "ddr"}, {"dma", "energy", "host", "accumulator", "memory"}},
      {"npu", {"name", "clock_mhz"}, {}},
      {"mac_array", {"rows", "cols", "dataflow", "dtype"}, {"macs_per_pe_per_cycle", "depthwise_mapping", "gemv_mapping", "gemv_max_m", "weight_dtype", "weight_group",
        "kv_cache_dtype", "conv_mapping", "weight_preload"}},
      {"sram", {"capacity", "bytes_per_cycle"}, {"banks", "latency_cycles", "bank_interleave_bytes"}},
      {"act_unit", {"lanes"}, {"latency_cycles"}},
      {"act_unit.latency_cycles", {}, detail::act_latency_keys()},
      {"dma", {}, {"burst_bytes", "max_outstanding", "requests_per_cycle"}},
      {"ddr",
       {"standard", "data_rate_mtps", "channels", "ranks", "bank_groups", "banks_per_group", "rows", "columns",
        "device_width", "bus_width_bits", "burst_length", "timing"},
       {"address_mapping", "page_policy", "queue_depth", "write_high_watermark", "write_low_watermark"}},
      {"ddr.timing",
       {"CL", "CWL", "tRCD", "tRP", "tRAS", "tRC", "tCCD_S", "tCCD_L", "tRRD_S", "tRRD_L", "tFAW", "tWR", "tWTR_S",
        "tWTR_L", "tRTP", "tRFC", "tREFI"},
       {"tRTRS"}},
      {"energy", {"pj_per_mac", "pj_per_sram_byte", "pj_per_ddr_byte"}, {}},
      {"host", {}, {"bandwidth_gbps", "gops"}},
      {"accumulator", {"capacity"}, {"bytes_per_element"}},
      {"memory", {"model"}, {"latency_ns", "bandwidth_gbps"}},
  };
  return kSchema;
}

}  // namespace npu
