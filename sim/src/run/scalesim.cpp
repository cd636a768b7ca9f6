// SCALE-Sim compatibility, the hardware side (scalesim.hpp): our systolic model's per-layer
// compute cycles on a SCALE-Sim topology and .cfg, read by the compiler's front end
// (compiler/src/frontend/scalesim/).
#include "npu/sim/run/scalesim.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "npu/hw/mac_array/systolic_model.hpp"

namespace npu::sim {

std::vector<ScaleSimLayerResult> scalesim_compute(const std::vector<compiler::ScaleSimLayer>& layers,
                                                  const compiler::ScaleSimConfig& cfg) {
  std::vector<ScaleSimLayerResult> out;
  out.reserve(layers.size());
  for (const compiler::ScaleSimLayer& l : layers) {
    ScaleSimLayerResult r;
    r.layer = l;
    const hw::GemmDims d{l.ofmap_px(), l.filters, l.window()};
    const hw::SystolicCycles c = hw::systolic_cycles(d, cfg.array_height, cfg.array_width, cfg.dataflow);
    // folds x cycles_per_fold in 128 bits: a layer within the MAC limit can still need more
    // than 2^62 cycles on a very tall or wide array (few, very long folds).
    const unsigned __int128 cycles128 = static_cast<unsigned __int128>(std::max<std::int64_t>(c.row_folds, 0)) *
                                        std::uint64_t(std::max<std::int64_t>(c.col_folds, 0)) *
                                        std::uint64_t(std::max<std::int64_t>(c.cycles_per_fold, 0));
    if (cycles128 > (static_cast<unsigned __int128>(1) << 62)) {
      throw ConfigError(fmt::format(
          "{}: error: layer '{}' (topology line {}) needs more than 2^62 cycles on the {}x{} array (the count would "
          "overflow)\n  fix: check ArrayHeight/ArrayWidth and the layer's numbers",
          cfg.source, l.name, l.line, cfg.array_height, cfg.array_width));
    }
    r.cycles = c.scalesim_total_cycles();
    r.folds = c.row_folds * c.col_folds;
    r.cycles_per_fold = c.cycles_per_fold;
    r.mapping_efficiency_pct = 100.0 * c.mapping_efficiency;
    r.compute_util_pct = 100.0 * c.compute_utilisation;
    r.overall_util_pct = 100.0 * double(l.macs()) / (double(r.cycles) * cfg.array_height * cfg.array_width);
    out.push_back(r);
  }
  return out;
}

std::string scalesim_csv(const std::vector<ScaleSimLayerResult>& results) {
  std::string s =
      "layer_id,layer,ifmap_h,ifmap_w,filter_h,filter_w,channels,filters,stride,ofmap_h,ofmap_w,macs,folds,"
      "cycles_per_fold,total_cycles,mapping_efficiency_pct,compute_util_pct,overall_util_pct\n";
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    const auto& l = r.layer;
    s += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{:.4f},{:.4f},{:.4f}\n", i, l.name, l.ifmap_h, l.ifmap_w,
                     l.filter_h, l.filter_w, l.channels, l.filters, l.stride_h, l.ofmap_h(), l.ofmap_w(), l.macs(), r.folds,
                     r.cycles_per_fold, r.cycles, r.mapping_efficiency_pct, r.compute_util_pct, r.overall_util_pct);
  }
  return s;
}

}  // namespace npu::sim
