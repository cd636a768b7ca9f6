// SCALE-Sim compatibility, the hardware side: the per-layer compute cycles of our systolic
// model on a SCALE-Sim topology and .cfg (ideal memory, as SCALE-Sim's InterfaceBandwidth
// CALC mode). The readers of both files are the compiler's front end
// (npu/compiler/frontend/scalesim/). Formats and quirks: ../shared/anchors/scalesim/README.md;
// model and sources: docs/timing.md; published figures: docs/validation.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "npu/compiler/frontend/scalesim/config.hpp"
#include "npu/compiler/frontend/scalesim/topology.hpp"

namespace npu::sim {

/// Our figures for one layer, in SCALE-Sim's terms (COMPUTE_REPORT.csv columns).
struct ScaleSimLayerResult {
  compiler::ScaleSimLayer layer;
  std::int64_t cycles = 0;        ///< SCALE-Sim "Total Cycles": folds x cycles per fold - 1
  std::int64_t folds = 0;
  std::int64_t cycles_per_fold = 0;
  double mapping_efficiency_pct = 0;
  double compute_util_pct = 0;
  double overall_util_pct = 0;  ///< 100 x MACs / (cycles x R x C)
};

std::vector<ScaleSimLayerResult> scalesim_compute(const std::vector<compiler::ScaleSimLayer>& layers,
                                                  const compiler::ScaleSimConfig& cfg);

/// CSV: layer_id,layer,ifmap_h,...,macs,folds,cycles_per_fold,total_cycles,mapping_efficiency_pct,
/// compute_util_pct,overall_util_pct (docs/validation.md).
std::string scalesim_csv(const std::vector<ScaleSimLayerResult>& results);

}  // namespace npu::sim
