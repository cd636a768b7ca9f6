// Analytic cycle model of an R x C systolic array, as computed by SCALE-Sim v2/v3
// (Samajdar et al., "A Systematic Methodology for Characterizing Scalability of DNN
// Accelerators using SCALE-Sim", ISPASS 2020; scale-sim-v2 scalesim/compute/
// systolic_compute_{os,ws,is}.py). Derivation and worked examples: docs/timing.md.
//
// A layer is an operand GEMM  ofmap[M x N] = ifmap[M x K] * filter[K x N]  with
//   M = ofmap pixels (h_out * w_out), N = filters (c_out), K = window (c_in * kh * kw).
// Each dataflow maps two of M, N, K onto the array (spatial) and streams the third (T):
//   OS: rows <- M, cols <- N, T = K; per fold  R + C + T - 2 cycles
//   WS: rows <- K, cols <- N, T = M; per fold 2R + C + T - 2 cycles
//   IS: rows <- K, cols <- M, T = N; per fold 2R + C + T - 2 cycles
// folds = ceil(rows_dim / R) * ceil(cols_dim / C); every fold pays its fill and drain.
#pragma once

#include <cstdint>

#include "npu/hw_config/hw_config.hpp"

namespace npu::hw {

/// Operand-GEMM dimensions of one layer (or one group of a grouped convolution).
struct GemmDims {
  std::int64_t m = 0;  ///< ofmap pixels (GEMM rows)
  std::int64_t n = 0;  ///< filters / output channels (GEMM columns)
  std::int64_t k = 0;  ///< reduction length (window size)
  std::uint64_t macs() const { return std::uint64_t(m) * std::uint64_t(n) * std::uint64_t(k); }
};

/// Cycle count and efficiency of one GEMM on the array, exactly as SCALE-Sim's compute
/// model produces them (demand-matrix rows; see docs/timing.md).
struct SystolicCycles {
  std::int64_t row_folds = 0;        ///< ceil(spatial rows dim / R)
  std::int64_t col_folds = 0;        ///< ceil(spatial cols dim / C)
  std::int64_t cycles_per_fold = 0;  ///< fill + stream + drain of one fold
  std::int64_t temporal = 0;         ///< T: the dimension streamed through the array
  /// folds * cycles_per_fold: the array is busy this long.
  std::int64_t cycles = 0;
  /// SCALE-Sim's "Total Cycles" (CALC mode, no stalls): the index of the last demand row,
  /// i.e. cycles - 1 (double_buffered_scratchpad_mem.py: total = last serviced cycle).
  std::int64_t scalesim_total_cycles() const { return cycles > 0 ? cycles - 1 : 0; }
  /// Mean over folds of used PEs / (R*C), in [0, 1] (SCALE-Sim "Mapping Efficiency").
  double mapping_efficiency = 0;
  /// Mean over folds of used_PEs*T / (R*C*fold_span), SCALE-Sim "Compute Util"; fold_span is
  /// the per-fold cycle count SCALE-Sim uses for it (WS/IS 2R+2C+T-3, OS R+C+T-2).
  double compute_utilisation = 0;
};

/// Cycles of `dims` on an `rows` x `cols` array with `dataflow`. `macs_per_pe_per_cycle` > 1
/// packs that many reduction elements per PE per cycle (the K dimension shrinks by that
/// factor, rounded up); SCALE-Sim has 1. Throws std::invalid_argument on non-positive sizes.
SystolicCycles systolic_cycles(const GemmDims& dims, int rows, int cols, Dataflow dataflow,
                               int macs_per_pe_per_cycle = 1);

}  // namespace npu::hw
