// How a GEMM with few rows runs: decode's GEMV (M = batch) on the MAC array or the vector unit
// (mac_array.gemv_mapping, docs/config.md "mac_array", derivation in docs/timing.md "GEMV").
// Pure arithmetic, header-only, no SystemC: the compiler (tile choice, --explain) and the
// hardware model (GEMM tile timing) take their cycle counts from here.
//
// A GEMM out[M x N] = in[M x K] * W[K x N] with M <= mac_array.gemv_max_m has three costed
// mappings (R x C array, L = act_unit.lanes, K' = ceil(K / macs_per_pe_per_cycle)):
//   weight_stationary  SCALE-Sim's WS fold: ceil(K'/R) * ceil(N/C) folds of 2R + C + M - 2.
//                      Each fold loads R x C weights (R cycles) and uses them for M inputs only:
//                      at M = 1 a 32 x 32 array does 1024 MACs per 95-cycle fold, 1/95 of peak.
//   output_stationary  SCALE-Sim's OS fold: ceil(M/R) * ceil(N/C) folds of R + C + K' - 2.
//                      Column j accumulates output j while its weights W[:, j] stream in from the
//                      array's edge, one per cycle: the array takes C weights a cycle, the most
//                      any mapping gets through one edge when every weight is used M times.
//                      At M = 1 one PE row works: utilisation 1/R (for K' >> R + C).
//   vector_unit        the activation unit's L lanes as MACs, lane j owning output j, the
//                      weights streamed from SRAM: ceil(N/L) * M * K' cycles (one MAC per lane
//                      per cycle; macs_per_pe_per_cycle packs K as in the array).
// `auto` takes the fewest cycles (ties: weight_stationary, output_stationary, vector_unit, in
// that order); `dataflow` (the default) runs the array's own dataflow like any other GEMM. The
// SRAM reads of the operands are timed separately, as for every instruction.
#pragma once

#include <algorithm>
#include <cstdint>

#include "npu/hw_config/hw_config.hpp"
#include "npu/isa/cost/systolic_fold.hpp"
#include "npu/isa/cost/ws_preload.hpp"

namespace npu::isa {

/// The candidates' cycles of one GEMM and the mapping it takes.
struct GemvChoice {
  bool applies = false;  ///< m <= gemv_max_m and gemv_mapping is not `dataflow`
  GemvMapping mapping = GemvMapping::Dataflow;  ///< what ran: never Auto
  std::int64_t ws_cycles = 0, os_cycles = 0, vector_cycles = 0;
  std::int64_t cycles = 0;  ///< of the mapping taken (the array's dataflow when !applies)
};

/// Vector-unit cycles of an m x k by k x n GEMM on `lanes` lanes (file comment). 0 for no work.
inline std::int64_t gemv_vector_cycles(std::int64_t m, std::int64_t n, std::int64_t k, int lanes,
                                       int macs_per_pe_per_cycle) {
  if (m <= 0 || n <= 0 || k <= 0 || lanes <= 0 || macs_per_pe_per_cycle <= 0) return 0;
  const std::int64_t kk = (k + macs_per_pe_per_cycle - 1) / macs_per_pe_per_cycle;
  return (n + lanes - 1) / lanes * m * kk;
}

/// The mapping of an m x k by k x n GEMM on array `a` with a vector unit of `vector_lanes`
/// lanes, and the cycles of each candidate (file comment).
inline GemvChoice gemm_mapping(std::int64_t m, std::int64_t n, std::int64_t k, const MacArrayConfig& a,
                               int vector_lanes) {
  GemvChoice c;
  const int p = a.macs_per_pe_per_cycle;
  // SCALE-Sim's WS folds, or Gemmini's weight-block stream when the array has its mechanisms.
  c.ws_cycles = ws_gemm_cycles(m, n, k, a);
  c.os_cycles = systolic_fold(m, n, k, a.rows, a.cols, Dataflow::OutputStationary, p).cycles();
  c.vector_cycles = gemv_vector_cycles(m, n, k, vector_lanes, p);
  c.applies = a.gemv_mapping != GemvMapping::Dataflow && m <= a.gemv_max_m;
  c.mapping = a.gemv_mapping;
  if (!c.applies) {
    c.mapping = GemvMapping::Dataflow;
    c.cycles = a.dataflow == Dataflow::WeightStationary ? c.ws_cycles
                                                        : systolic_fold(m, n, k, a.rows, a.cols, a.dataflow, p).cycles();
    return c;
  }
  if (c.mapping == GemvMapping::Auto) {
    c.mapping = GemvMapping::WeightStationary;
    if (c.os_cycles < c.ws_cycles) c.mapping = GemvMapping::OutputStationary;
    if (vector_lanes > 0 && c.vector_cycles < std::min(c.ws_cycles, c.os_cycles)) c.mapping = GemvMapping::VectorUnit;
  }
  c.cycles = c.mapping == GemvMapping::WeightStationary   ? c.ws_cycles
             : c.mapping == GemvMapping::OutputStationary ? c.os_cycles
                                                          : c.vector_cycles;
  return c;
}

/// Cycles of a GEMM (tile) of m x k by k x n: gemm_mapping(...).cycles.
inline std::int64_t gemm_cycles(std::int64_t m, std::int64_t n, std::int64_t k, const MacArrayConfig& a,
                                int vector_lanes) {
  return gemm_mapping(m, n, k, a, vector_lanes).cycles;
}

}  // namespace npu::isa
