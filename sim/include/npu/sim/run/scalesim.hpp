// SCALE-Sim compatibility: readers for SCALE-Sim's topology CSV and .cfg files (our own,
// small), and the per-layer compute cycles of our systolic model on them (ideal memory, as
// SCALE-Sim's InterfaceBandwidth CALC mode). Formats and quirks:
// ../shared/anchors/scalesim/README.md; model and sources: docs/timing.md; published
// figures: docs/validation.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "npu/hw_config/hw_config.hpp"

namespace npu::sim {

/// One SCALE-Sim layer (after splitting "DP" depthwise layers into per-channel layers).
struct ScaleSimLayer {
  std::string name;
  int line = 0;  ///< line in the topology file
  std::int64_t ifmap_h = 0, ifmap_w = 0, filter_h = 0, filter_w = 0, channels = 0, filters = 0;
  std::int64_t stride_h = 1, stride_w = 1;
  std::int64_t ofmap_h() const;  ///< ceil((ifmap_h - filter_h + stride_h) / stride_h)
  std::int64_t ofmap_w() const;
  std::int64_t ofmap_px() const { return ofmap_h() * ofmap_w(); }        ///< M
  std::int64_t window() const { return filter_h * filter_w * channels; }  ///< K
  std::uint64_t macs() const { return std::uint64_t(ofmap_px()) * std::uint64_t(filters) * std::uint64_t(window()); }
};

enum class TopologyFormat { Auto, Conv, Gemm };

/// Reads a topology CSV: conv format `Layer name, IFMAP Height, IFMAP Width, Filter Height,
/// Filter Width, Channels, Num Filter, Strides[, Stride W | Sparsity],` or GEMM format
/// `Layer, M, N, K,` (mapped like SCALE-Sim: ifmap M x K, filter 1 x K, 1 channel, N filters).
/// The header row is skipped, blank lines ignored, a trailing comma is optional. A conv layer
/// whose name contains "DP" becomes `Channels` layers "<name>Channel_<i>" of 1 channel, as
/// SCALE-Sim does. Throws ConfigError "FILE:LINE: error: ..." for malformed rows, non-numbers,
/// non-positive sizes or a filter larger than the ifmap.
std::vector<ScaleSimLayer> read_scalesim_topology(const std::string& path, TopologyFormat format = TopologyFormat::Auto);
std::vector<ScaleSimLayer> parse_scalesim_topology(const std::string& text, const std::string& source,
                                                    TopologyFormat format = TopologyFormat::Auto);

/// The parts of a SCALE-Sim .cfg the compute model needs.
struct ScaleSimConfig {
  std::string source;
  std::string run_name;
  int array_height = 0;  ///< ArrayHeight: rows R
  int array_width = 0;   ///< ArrayWidth: columns C
  Dataflow dataflow = Dataflow::OutputStationary;
  std::string interface_bandwidth = "CALC";  ///< CALC | USER
  double ifmap_sram_kb = 0, filter_sram_kb = 0, ofmap_sram_kb = 0;
};

/// Reads an INI-style .cfg ([general], [architecture_presets], [run_presets], ...; `key: value`
/// or `key = value`, keys case-insensitive, `#`/`;` comments). Throws ConfigError naming
/// FILE:LINE for malformed lines, a missing ArrayHeight/ArrayWidth/Dataflow, or a bad value.
ScaleSimConfig read_scalesim_config(const std::string& path);
ScaleSimConfig parse_scalesim_config(const std::string& text, const std::string& source);

/// Our figures for one layer, in SCALE-Sim's terms (COMPUTE_REPORT.csv columns).
struct ScaleSimLayerResult {
  ScaleSimLayer layer;
  std::int64_t cycles = 0;        ///< SCALE-Sim "Total Cycles": folds x cycles per fold - 1
  std::int64_t folds = 0;
  std::int64_t cycles_per_fold = 0;
  double mapping_efficiency_pct = 0;
  double compute_util_pct = 0;
  double overall_util_pct = 0;  ///< 100 x MACs / (cycles x R x C)
};

std::vector<ScaleSimLayerResult> scalesim_compute(const std::vector<ScaleSimLayer>& layers, const ScaleSimConfig& cfg);

/// CSV: layer_id,layer,ifmap_h,...,macs,folds,cycles_per_fold,total_cycles,mapping_efficiency_pct,
/// compute_util_pct,overall_util_pct (docs/validation.md).
std::string scalesim_csv(const std::vector<ScaleSimLayerResult>& results);

}  // namespace npu::sim
