// Analytic fold model of an R x C systolic array (SCALE-Sim v2, Samajdar et al., ISPASS 2020;
// scale-sim-v2 scalesim/compute/systolic_compute_{os,ws,is}.py; derivation in docs/timing.md).
// Pure arithmetic, header-only, no SystemC: the ONE place the compiler (tile choice, report)
// and the hardware model (MAC-array tile timing) take their cycle counts from.
//
// A GEMM ofmap[M x N] = ifmap[M x K] * filter[K x N] (a convolution group: M = output pixels,
// N = c_out/group, K = c_in/group * kh * kw). Each dataflow maps two of M, N, K onto the
// array and streams the third (T):
//   OS: rows <- M, cols <- N, T = K; folds ceil(M/R) * ceil(N/C), each  R + C + K - 2 cycles
//   WS: rows <- K, cols <- N, T = M; folds ceil(K/R) * ceil(N/C), each 2R + C + M - 2 cycles
//   IS: rows <- K, cols <- M, T = N; folds ceil(K/R) * ceil(M/C), each 2R + C + N - 2 cycles
// macs_per_pe_per_cycle > 1 packs that many reduction elements per PE: K becomes
// ceil(K / macs_per_pe_per_cycle).
//
// Grouped convolutions (conv_gemm below). mac_array.depthwise_mapping chooses:
//   scalesim (default): the groups run one after another, each the GEMM above -- SCALE-Sim's
//     mapping (topology_utils.py splits a "DP" layer into one single-channel layer per
//     channel). A depthwise conv (N = 1, K = kh*kw) then uses one column of the array.
//   channels_across_columns: a conv with one input channel per group (depthwise, c_out =
//     multiplier x c_in) runs as ONE GEMM with N = c_out, K = kh*kw: output channel j owns
//     array column j (modulo C) and reads its own input channel j / multiplier -- a per-column
//     input path instead of the row broadcast, which is what a depthwise-capable array adds.
//     The fold is the dataflow's SCALE-Sim fold with that N and K, same fill, skew and drain:
//       WS: the kh*kw taps of C channels sit in the PEs (rows <- taps, cols <- channels) and
//           the output pixels stream: ceil(kh*kw/R) * ceil(c_out/C) folds of 2R + C + M - 2
//           (R cycles to load the taps, M pixels, R-1 psum skew down the rows, C-1 column skew);
//       OS: each PE owns one (pixel, channel) output (rows <- pixels, cols <- channels) and the
//           taps stream: ceil(M/R) * ceil(c_out/C) folds of R + C + kh*kw - 2.
//     Against scalesim that divides the fold count by about min(c_out, C). IS is excluded (the
//     config loader rejects it): an input-stationary PE holds one channel's input element,
//     which no other channel uses. Groups with more than one input channel keep the scalesim
//     mapping under either setting.
#pragma once

#include <cstdint>

#include "npu/hw_config/hw_config.hpp"

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

/// A convolution (tile) as the array runs it: `passes` GEMMs of m x k by k x n, one after another.
struct ConvGemm {
  std::int64_t passes = 0;  ///< groups under the scalesim mapping, 1 under channels_across_columns
  std::int64_t m = 0, n = 0, k = 0;
  bool channels_across_columns = false;  ///< the depthwise mapping applied (see the file comment)
};

/// How a convolution of `groups` groups, each cin_per_group -> cout_per_group channels with
/// kernel_taps = kh * kw, over out_pixels = h_out * w_out maps onto the array (file comment).
/// A GEMM is groups = 1, cin_per_group = k, cout_per_group = n, kernel_taps = 1.
inline ConvGemm conv_gemm(std::int64_t groups, std::int64_t out_pixels, std::int64_t cin_per_group,
                          std::int64_t cout_per_group, std::int64_t kernel_taps, const MacArrayConfig& a) {
  ConvGemm g;
  g.m = out_pixels;
  if (a.depthwise_mapping == DepthwiseMapping::ChannelsAcrossColumns && groups > 1 && cin_per_group == 1 &&
      a.dataflow != Dataflow::InputStationary) {
    g.passes = 1;
    g.n = groups * cout_per_group;
    g.k = kernel_taps;
    g.channels_across_columns = true;
  } else {
    g.passes = groups;
    g.n = cout_per_group;
    g.k = cin_per_group * kernel_taps;
  }
  return g;
}

/// Folds of one pass of conv_gemm() on `a`.
inline SystolicFold conv_pass_fold(const ConvGemm& g, const MacArrayConfig& a) {
  return systolic_fold(g.m, g.n, g.k, a.rows, a.cols, a.dataflow, a.macs_per_pe_per_cycle);
}

/// Array cycles of a convolution tile: passes x folds x cycles per fold (conv_gemm).
inline std::int64_t conv_array_cycles(std::int64_t groups, std::int64_t out_pixels, std::int64_t cin_per_group,
                                      std::int64_t cout_per_group, std::int64_t kernel_taps, const MacArrayConfig& a) {
  const ConvGemm g = conv_gemm(groups, out_pixels, cin_per_group, cout_per_group, kernel_taps, a);
  return g.passes * conv_pass_fold(g, a).cycles();
}

}  // namespace npu::isa
