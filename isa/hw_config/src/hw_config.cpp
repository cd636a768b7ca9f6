// HwConfig's derived figures, the names of its enumerations, the host roofline and the
// config label. Loading is load/, writing back to_yaml.cpp.
#include "npu/hw_config/hw_config.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>

#include "npu/base/checked_math.hpp"

namespace npu {

std::uint64_t HwConfig::min_sram_tile_bytes() const {
  // Accumulators are 32 bit for every supported dtype: int32 for int8 (as in the TPU v1
  // accumulators), fp32 for fp16 and fp32.
  const std::uint64_t acc_bytes = 4;
  const std::uint64_t r = std::uint64_t(mac_array.rows), c = std::uint64_t(mac_array.cols);
  const std::uint64_t b = std::uint64_t(dtype_bytes(mac_array.dtype));
  const char* what = "minimal SRAM tile 2 x rows x cols x dtype bytes + rows x dtype bytes + cols x 4";
  return checked_add(checked_add(checked_product({2, r, c, b}, what), r * b, what), c * acc_bytes, what);
}

int dtype_bytes(DType t) {
  switch (t) {
    case DType::Int8: return 1;
    case DType::Fp16: return 2;
    case DType::Fp32: return 4;
  }
  return 1;
}

const char* to_string(Dataflow d) {
  switch (d) {
    case Dataflow::WeightStationary: return "weight_stationary";
    case Dataflow::OutputStationary: return "output_stationary";
    case Dataflow::InputStationary: return "input_stationary";
  }
  return "?";
}

const char* to_string(DType t) {
  switch (t) {
    case DType::Int8: return "int8";
    case DType::Fp16: return "fp16";
    case DType::Fp32: return "fp32";
  }
  return "?";
}

const char* to_string(PagePolicy p) { return p == PagePolicy::Open ? "open" : "closed"; }

// Names in enum order (the loader's allowed lists, load/mac_array_llm_keys.cpp, keep it too).
const char* to_string(GemvMapping m) {
  static const char* const kNames[] = {"dataflow", "weight_stationary", "output_stationary", "vector_unit", "auto"};
  return kNames[static_cast<int>(m)];
}

const char* to_string(WeightDType t) {
  static const char* const kNames[] = {"same", "int8", "fp16", "int4"};
  return kNames[static_cast<int>(t)];
}

const char* to_string(KvCacheDType t) {
  static const char* const kNames[] = {"same", "int8", "fp16"};
  return kNames[static_cast<int>(t)];
}

const char* to_string(DepthwiseMapping m) {
  return m == DepthwiseMapping::ChannelsAcrossColumns ? "channels_across_columns" : "scalesim";
}

const char* to_string(ConvMapping m) { return m == ConvMapping::ChannelsOnRows ? "channels_on_rows" : "im2col"; }
const char* to_string(WeightPreload w) { return w == WeightPreload::DoubleBuffered ? "double_buffered" : "none"; }
const char* to_string(MemoryModel m) { return m == MemoryModel::Fixed ? "fixed" : "ddr"; }

std::uint64_t host_cycles(const HwConfig& hw, std::uint64_t macs, std::uint64_t bytes) {
  // Cycles = seconds x clock_mhz x 1e6 with seconds = bytes / (GB/s x 1e9) or macs / (G/s x 1e9);
  // the 1e6 / 1e9 is folded first so that exact quotients stay exact in long double. The
  // relative 1e-12 keeps a quotient such as 1000000.0000000001 (rounding noise) from
  // ceil-ing up to the next cycle.
  const long double mhz = hw.npu.clock_mhz;
  auto cycles = [mhz](std::uint64_t amount, double per_ns_giga) -> long double {
    if (amount == 0 || !(per_ns_giga > 0)) return 0.0L;
    return (long double)amount * mhz / ((long double)per_ns_giga * 1000.0L);
  };
  const long double t = std::max(cycles(bytes, hw.host.bandwidth_gbps), cycles(macs, hw.host.gops));
  if (t <= 0) return 0;
  return std::uint64_t(std::ceil(t * (1.0L - 1e-12L)));
}

std::string config_label(const HwConfig& hw) {
  const std::filesystem::path p(hw.source);
  const std::string ext = p.extension().string();
  if (ext != ".yaml" && ext != ".yml") return hw.npu.name;
  std::string stem = p.stem().string();
  if (stem.empty()) return hw.npu.name;
  for (char& c : stem)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) c = '_';
  return stem;
}

}  // namespace npu
