// Precision keys that apply to less than their name says (precision_warnings.hpp).
#include "driver/precision_warnings.hpp"

#include <map>
#include <set>

#include <fmt/format.h>

#include "npu/isa/cost/kv_cache_width.hpp"
#include "npu/isa/cost/precision.hpp"

namespace npu::compiler {

void warn_weight_dtype_coverage(CompileResult& r, const HwConfig& hw, const std::string& where) {
  const MacArrayConfig& a = hw.mac_array;
  if (isa::weight_elem_bits(a) == 8 * dtype_bytes(a.dtype)) return;
  const LoweredGraph& lg = r.lowered;
  std::map<std::string, std::uint64_t> bytes_of;  // DDR weight tensors by name, as stored
  for (const DdrTensor& d : lg.ddr_tensors)
    if (d.kind == isa::TensorKind::Weight) bytes_of[d.name] = d.bytes;
  std::uint64_t narrow = 0, conv = 0, shared = 0, largest = 0;
  int conv_layers = 0;
  std::string largest_name;
  std::set<std::string> counted;  // a weight read by two layers counts once
  for (const LayerSpec& L : lg.layers) {
    if (L.kind != LayerKind::Conv && L.kind != LayerKind::Gemm) continue;
    for (const std::string* w : {&L.weight, &L.glu_gate}) {
      const auto it = bytes_of.find(*w);
      if (w->empty() || it == bytes_of.end() || !counted.insert(*w).second) continue;
      if (const auto n = lg.weight_dtype_bytes.find(*w); n != lg.weight_dtype_bytes.end()) {
        narrow += n->second;  // as stored in weight_dtype, scales included
      } else if (L.kind == LayerKind::Conv) {
        conv += it->second;
        ++conv_layers;
      } else {
        shared += it->second;
        if (it->second > largest) largest = it->second, largest_name = *w;
      }
    }
  }
  if (conv + shared == 0) return;
  std::string kept;
  if (conv) kept += fmt::format("{} B of CONV weights ({} layer(s))", conv, conv_layers);
  if (shared)
    kept += fmt::format("{}{} B of GEMM weights another layer also reads (the largest '{}', {} B, e.g. a tied "
                        "embedding table)",
                        kept.empty() ? "" : " and ", shared, largest_name, largest);
  r.warnings.push_back(fmt::format(
      "{}: warning: mac_array.weight_dtype {} applies to {} B of GEMM weights; {} stay in mac_array.dtype {} "
      "(docs/config.md \"Precisions\"), so the weight bytes shrink less than the width ratio",
      where, to_string(a.weight_dtype), narrow, kept, to_string(a.dtype)));
}

void warn_kv_cache_dtype_unused(CompileResult& r, const HwConfig& hw, const std::string& where) {
  const MacArrayConfig& a = hw.mac_array;
  if (isa::kv_cache_width_refusal(a).empty() || !r.lowered.kv_appends.empty()) return;
  r.warnings.push_back(fmt::format(
      "{}: warning: mac_array.kv_cache_dtype {} has no effect on this program: it has no KV-cache append (a decode "
      "step's past + new rows, which a cache of another width than the array's refuses); its tensors, a prefill's "
      "K/V outputs included, are in mac_array.dtype {} (docs/config.md \"Precisions\")",
      where, to_string(a.kv_cache_dtype), to_string(a.dtype)));
}

}  // namespace npu::compiler
