// Given tiles: per-layer tile sizes read from a file, in ONNXim's mapping notation (the
// notation of ../shared/anchors/gemmini-rtl/onnxim/gemmini_gt.csv), checked against the
// layer and the hardware. Reference: docs/compiler.md "Given tiles".
//
//   [T] N1 C64 M64 P56 Q56 S3 R3 - [O] N1 C1 M8 P4 Q4 S1 R1 - [I] N1 C64 M8 P15 Q17 S3 R3
//
// [T] total loop sizes, [O] outer loop counts (tiles per dimension), [I] inner tile sizes. N
// batch (a GEMM's rows), C input channels (the reduction), M output channels, P / Q output
// height / width, S / R kernel height / width. A GEMM lists N, C and M only (the others are 1).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "npu/hw_config/hw_config.hpp"

namespace npu::compiler {

/// Sizes of the seven loops of a convolution (a GEMM: p = q = s = r = 1).
struct LoopSizes {
  std::int64_t n = 1, c = 1, m = 1, p = 1, q = 1, s = 1, r = 1;
};

/// One layer's tiling in ONNXim's notation.
struct TileMapping {
  LoopSizes total, outer, inner;
};

/// Parses the notation above. Every size must be a positive integer, each part ([T], [O],
/// [I]) must appear once, and outer x inner must cover total in every dimension (the last
/// tile may be partial). Throws ConfigError naming `where` (file:line) and the fix.
TileMapping parse_tile_mapping(const std::string& text, const std::string& where);

/// One row of a tile-override file.
struct TileOverride {
  std::string layer;
  TileMapping mapping;
  std::string where;  ///< "FILE:LINE" for messages
};

/// Reads a tile-override CSV: a header naming a `layer` (or `test`) column and a `mapping`
/// column, then one row per layer (fields without quotes or commas). Other columns are
/// ignored, so the RTL ground-truth CSV itself is a valid override file. Throws ConfigError
/// for a missing file or column, a bad mapping, a layer listed twice or an empty file.
std::vector<TileOverride> read_tile_overrides(const std::string& path);

/// On-chip bytes one inner tile needs: int8 inputs and weights in the scratchpad (the input
/// patch is ((P-1) min(S, stride) + S) x ((Q-1) min(R, stride) + R) pixels of C channels, per
/// N: a kernel narrower than the stride reads only the sampled pixels), and the
/// partial sums N x P x Q x M of accumulator bytes_per_element in the accumulator.
struct TileFootprint {
  std::uint64_t scratchpad_bytes = 0;
  std::uint64_t accumulator_bytes = 0;
};
TileFootprint tile_footprint(const TileMapping& t, int stride, int act_bytes, int acc_elem_bytes);

/// Throws ConfigError (naming o.where, the layer, both byte counts and the fix) when o's inner
/// tile does not fit sram.capacity or, with an accumulator section, accumulator.capacity.
void check_tile_fits(const TileOverride& o, int stride, const HwConfig& hw);

/// Throws ConfigError for the first override whose layer is not in `layers` (with the closest
/// name as a suggestion); `model` names the model in the message.
void check_override_layers(const std::vector<TileOverride>& overrides, const std::vector<std::string>& layers,
                           const std::string& model);

}  // namespace npu::compiler
