// SCALE-Sim compatibility, the model side: a reader for SCALE-Sim's topology CSV (our own,
// small). Its layers are run by sim/'s SCALE-Sim compute model (npu/sim/run/scalesim.hpp).
// Formats and quirks: ../shared/anchors/scalesim/README.md; model and sources:
// docs/timing.md; published figures: docs/validation.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace npu::compiler {

/// Output size of a "valid" SCALE-Sim convolution: ceil((in - filter + stride) / stride)
/// (topology_utils.py, topo_calc_hyperparams). Throws std::invalid_argument unless
/// 0 < filter <= in and stride > 0.
std::int64_t scalesim_ofmap_size(std::int64_t in, std::int64_t filter, std::int64_t stride);

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

}  // namespace npu::compiler
