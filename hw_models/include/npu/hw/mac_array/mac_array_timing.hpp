// Timing core of the MAC array (no SystemC): cycles of a CONV or GEMM tile.
//
// CONV is lowered to an operand GEMM per group as in SCALE-Sim (im2col): M = h_out*w_out,
// N = c_out/group, K = (c_in/group)*kh*kw; the groups run one after another, each paying its
// own folds (a depthwise convolution is c_in single-channel layers, which is how SCALE-Sim
// maps "DP" layers). With mac_array.depthwise_mapping = channels_across_columns a depthwise
// tile (one input channel per group) is instead one GEMM N = c_out, K = kh*kw, its channels
// across the array's columns (isa::conv_gemm, isa/cost/systolic_fold.hpp).
// GEMM maps directly (M = m, N = n, K = k).
// A fused epilogue streams the array's output through the activation unit: it adds its
// pipeline latency and, if the unit has fewer lanes than outputs arrive, its streaming time
// bounds the tile. Formulas and sources: docs/timing.md.
#pragma once

#include <cstdint>

#include "npu/hw/mac_array/systolic_model.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "npu/isa/instruction.hpp"

namespace npu::hw {

struct MacTileCost {
  std::uint64_t array_cycles = 0;       ///< systolic-array cycles over all groups
  std::uint64_t epilogue_stream_cycles = 0;  ///< ceil(outputs / act lanes) when an epilogue is fused
  std::uint64_t epilogue_latency_cycles = 0; ///< pipeline latency of the fused epilogue
  std::uint64_t macs = 0;
  std::int64_t groups = 1;
  std::int64_t passes = 1;   ///< GEMMs run one after another: groups, or 1 for channels_across_columns
  SystolicCycles per_group;  ///< the model's figures for one pass (one group under the scalesim mapping)
  /// Tile cycles before SRAM limits: max(array, epilogue stream) + epilogue latency.
  std::uint64_t cycles() const {
    return (array_cycles > epilogue_stream_cycles ? array_cycles : epilogue_stream_cycles) + epilogue_latency_cycles;
  }
};

/// Pipeline latency of `op_name` (an ActOp/EltwiseOp/PoolOp name) in the activation unit:
/// act_unit.op_latency_cycles[op_name], else act_unit.default_latency_cycles.
int act_latency_cycles(const ActUnitConfig& cfg, const std::string& op_name);

/// Epilogue latency: default latency once if bias, scale_shift or residual is present (one
/// add/multiply stage), plus the activation's latency if act != none.
std::uint64_t epilogue_latency_cycles(const ActUnitConfig& cfg, const isa::Epilogue& e);

/// Cost of a CONV tile. Throws std::invalid_argument on an illegal shape (non-positive
/// sizes, c_in or c_out not divisible by group).
MacTileCost conv_tile_cost(const isa::ConvParams& p, const HwConfig& hw);

/// Cost of a GEMM tile. Throws std::invalid_argument on non-positive sizes.
MacTileCost gemm_tile_cost(const isa::GemmParams& p, const HwConfig& hw);

}  // namespace npu::hw
