// Tiling and loop order of a Conv over NCDHW (LayerSpec::depth; codegen/conv3d.cpp): output
// depth slice od is the sum over kernel depth kd of the 2-D convolutions of input slice
// id = od * s - pad + kd * dil with W[:, :, kd]. The 2-D tile (co_tile output channels x
// rows_tile output rows, ci_tile input channels per CONV) is cut as for a 2-D conv; what a
// depth adds is the order of the (co tile, od, row tile, kd) loops, which decides what is
// re-read from DDR. Three orders, with T = the (od, kd) pairs that read a slice
// (DepthGeom::taps_run), B = sum over row tiles of the band's input rows x w_in x c_in x e,
// Wk = c_out x c_in x kh x kw x e (one kd slice of the weights), Wall = kD x Wk:
//   weights-resident-depth: co tile { load W[co tile, :, :, :, :] (all kD slices) once;
//       od { row tile { kd { band of slice id; CONV } } } }.
//       weights Wall (compulsory), input n_co x T x B. Needs cot x c_in x kD x kh x kw.
//   input-resident-depth:   od { row tile { load the bands of every valid kd once;
//       co tile { kd { W[co tile, :, kd]; CONV } } } }.
//       input T x B, weights n_row x T x Wk. Needs kD bands of c_in channels.
//   per-tap:                co tile { od { row tile { kd { ci group { band, W[co, ci, kd];
//       CONV } } } } }. input n_co x T x B, weights n_row x T x Wk; the only order that can
//       split c_in (cin_split.hpp), so it is the one left when the others do not fit.
// The choice: the best tiling of each order (choose_tiling, tiling.hpp), then the order whose
// burst-rounded DDR bytes are lowest (ties: weights-resident-depth, input-resident-depth,
// per-tap). Reference: docs/compiler.md "Conv over NCDHW".
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "npu/compiler/backend/lowering/lowering.hpp"
#include "npu/compiler/backend/tiling/tiling.hpp"

namespace npu::compiler {

enum class DepthOrder { WeightsResident, InputResident, PerTap };
/// "weights-resident-depth" | "input-resident-depth" | "per-tap" (the report's loop_order).
const char* to_string(DepthOrder o);

/// One Conv-over-NCDHW tiling. `tile` is the 2-D tile plan (co_tile, rows_tile, ci_tile,
/// n_co, n_row, n_ci, SRAM layout); its byte and time fields hold the whole layer's figures
/// (all depth slices): input_read_bytes, weight_read_bytes, burst_cost_bytes (loads, stores
/// and residual loads), array_cycles, steps (CONVs), estimated_ns.
struct Conv3dPlan {
  DepthOrder order = DepthOrder::PerTap;
  ConvTilePlan tile;
  /// SRAM bytes from one kd slice to the next: the weights of weights-resident-depth
  /// (cot x c_in x kh x kw x e, aligned), the bands of input-resident-depth; else 0.
  std::uint64_t slice_stride = 0;
};

/// The chosen plan and, for --explain, the best plan of each order (nullopt: it does not fit)
/// with a one-line reason naming the figures: "fewest burst DDR bytes: weights-resident-depth:
/// burst DDR .. B (weights .. B, input .. B); input-resident-depth: ...; per-tap: ..." ("order
/// forced: ..." under a forced TilingOptions::conv3d_order; "<order>: does not fit").
struct Conv3dChoice {
  std::optional<Conv3dPlan> chosen;
  std::optional<Conv3dPlan> best[3];  ///< indexed by DepthOrder
  std::string why;
};

/// Plans a Conv over NCDHW (g: one depth slice's 2-D geometry, group 1; d: the depth) in
/// `sram_bytes`, among the orders opt.conv3d_order allows. chosen is nullopt when no allowed
/// order fits; with Auto, when not even the per-tap minimal tile (one output channel x one
/// output row x one input channel, conv_split_min_sram_bytes) fits.
Conv3dChoice plan_conv3d(const ConvGeom& g, const DepthGeom& d, std::uint64_t sram_bytes, const TilingOptions& opt);

}  // namespace npu::compiler
