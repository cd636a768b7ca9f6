// The two margins of the CONV/GEMM tiler's latency-first rules (issue 28 kind 1: "a user asks
// for latency first"; docs/compiler.md "Tiling" and "Input-channel split"). Constants, not
// TilingOptions fields: no config or memo key changes with them.
#pragma once

namespace npu::compiler {

/// A tiling whose burst cost is over TilingOptions::max_traffic_over_min of the least is still
/// taken when its estimated time is at most 1 / this of the best within that cap (then the
/// fastest of all tilings, ties by lower burst cost); and a larger SRAM's plan replaces a
/// smaller SRAM's on the same terms (conv_plan_improves), whatever its DDR bytes.
inline constexpr double kOverCapSpeedup = 2.0;

/// A dense Conv takes the input-channel split (cin_split.hpp
/// plan_conv_layer) over its best whole-input-channel plan when the split's estimated time is
/// at most 1 / this of it: "clearly faster", a margin for what the estimate leaves out (the
/// partial sums' SRAM reads and writes).
inline constexpr double kSplitSpeedup = 1.25;

}  // namespace npu::compiler
