// Analytic fold model of an R x C systolic array (SCALE-Sim v2, Samajdar et al., ISPASS 2020;
// scale-sim-v2 scalesim/compute/systolic_compute_{os,ws,is}.py; derivation in docs/timing.md).
// Pure arithmetic, header-only, no SystemC: shared by the compiler (tile choice, report hint)
// and usable by the timing models.
//
// A GEMM ofmap[M x N] = ifmap[M x K] * filter[K x N] (a convolution group: M = output pixels,
// N = c_out/group, K = c_in/group * kh * kw). Each dataflow maps two of M, N, K onto the
// array and streams the third (T):
//   OS: rows <- M, cols <- N, T = K; folds ceil(M/R) * ceil(N/C), each  R + C + K - 2 cycles
//   WS: rows <- K, cols <- N, T = M; folds ceil(K/R) * ceil(N/C), each 2R + C + M - 2 cycles
//   IS: rows <- K, cols <- M, T = N; folds ceil(K/R) * ceil(M/C), each 2R + C + N - 2 cycles
// macs_per_pe_per_cycle > 1 packs that many reduction elements per PE: K becomes
// ceil(K / macs_per_pe_per_cycle). Groups of a grouped convolution run one after another.
#pragma once

#include <cstdint>

#include "npu/isa/hw_config.hpp"

namespace npu::isa {

struct SystolicFold {
  std::int64_t row_folds = 0;        ///< ceil(spatial rows dim / R)
  std::int64_t col_folds = 0;        ///< ceil(spatial cols dim / C)
  std::int64_t cycles_per_fold = 0;  ///< fill + stream + drain of one fold
  std::int64_t temporal = 0;         ///< T, the streamed dimension
  std::int64_t cycles() const { return row_folds * col_folds * cycles_per_fold; }
};

/// Folds and cycles of one GEMM (m x k by k x n) on a rows x cols array (see the file
/// comment). All sizes must be positive; a non-positive size yields all zeros (no work).
inline SystolicFold systolic_fold(std::int64_t m, std::int64_t n, std::int64_t k, int rows, int cols,
                                  Dataflow dataflow, int macs_per_pe_per_cycle = 1) {
  SystolicFold f;
  if (m <= 0 || n <= 0 || k <= 0 || rows <= 0 || cols <= 0 || macs_per_pe_per_cycle <= 0) return f;
  auto cdiv = [](std::int64_t a, std::int64_t b) { return (a + b - 1) / b; };
  const std::int64_t r = rows, c = cols;
  const std::int64_t kk = cdiv(k, macs_per_pe_per_cycle);
  std::int64_t spatial_rows = 0, spatial_cols = 0;
  switch (dataflow) {
    case Dataflow::OutputStationary:
      spatial_rows = m, spatial_cols = n, f.temporal = kk;
      f.cycles_per_fold = r + c + kk - 2;
      break;
    case Dataflow::WeightStationary:
      spatial_rows = kk, spatial_cols = n, f.temporal = m;
      f.cycles_per_fold = 2 * r + c + m - 2;
      break;
    case Dataflow::InputStationary:
      spatial_rows = kk, spatial_cols = m, f.temporal = n;
      f.cycles_per_fold = 2 * r + c + n - 2;
      break;
  }
  f.row_folds = cdiv(spatial_rows, r);
  f.col_folds = cdiv(spatial_cols, c);
  return f;
}

/// Array cycles of a convolution tile: `groups` groups one after another, each the GEMM
/// M = out_pixels, N = cout_per_group, K = cin_per_group * kh * kw.
inline std::int64_t conv_array_cycles(std::int64_t groups, std::int64_t out_pixels, std::int64_t cout_per_group,
                                      std::int64_t cin_per_group_window, const MacArrayConfig& a) {
  return groups * systolic_fold(out_pixels, cout_per_group, cin_per_group_window, a.rows, a.cols, a.dataflow,
                                a.macs_per_pe_per_cycle)
                      .cycles();
}

}  // namespace npu::isa
