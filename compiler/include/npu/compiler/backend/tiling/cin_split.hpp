// Tiles split along input channels: for a dense Conv whose smallest whole-input-channel tile
// (one output channel x one output row x all input channels) does not fit the SRAM. Each
// output tile runs one CONV per input-channel group; the groups' partial sums accumulate in
// SRAM (CONV acc_in / acc_out, docs/isa.md "CONV partial sums") and the epilogue (bias,
// residual, activation, int8 requantisation) runs once, on the last group.
// Reference: docs/compiler.md "Input-channel split".
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "npu/compiler/backend/tiling/tiling.hpp"

namespace npu::compiler {

/// True for a layer the split applies to: a dense (group 1) Conv, not a GEMM, with c_in >= 2.
bool cin_split_applies(const ConvGeom& g);

/// SRAM layout of a split tile: co_tile output channels x rows_tile output rows x ci_tile
/// input channels. Buffers in address order: in in' (ci_tile x band rows x w_in), w w'
/// (co_tile x ci_tile x kh x kw), params, [in_scale], [res res'], out [out'], acc (co_tile x
/// rows_tile x w_out x 4 B, one slot: the array runs its CONVs in order).
ConvSramLayout conv_split_sram_layout(const ConvGeom& g, int co_tile, int rows_tile, int ci_tile,
                                      const TilingOptions& opt);

/// Burst-rounded DDR bytes of a split tiling. Loop order: output-channel tile, row tile, input
/// group (innermost), so per (co tile, row tile) every group's input band and weight slice is
/// loaded once: input = n_co x sum over row bands and groups of the band's ci_tile channel runs;
/// weights = n_row x sum over co tiles and groups of co_tile runs of ci_tile x kh x kw elements
/// (stride c_in x kh x kw); output (+ residual) stored once per tile (output_burst_cost).
std::uint64_t conv_split_burst_cost(const ConvGeom& g, int co_tile, int rows_tile, int ci_tile,
                                    const TilingOptions& opt);

/// Best split tiling in `sram_bytes`: over output-channel tiles ceil(c_out/n), row tiles
/// ceil(h_out/m) and input-channel groups ceil(c_in/k) with k >= 2, the tilings whose layout
/// fits, chosen as plan_conv chooses (tiling.hpp). nullopt when the minimal split tile does
/// not fit or the split does not apply (cin_split_applies). `whole_too`: also the tilings with
/// all c_in in one group (k = 1; a Conv over NCDHW accumulates its depth taps in the same
/// accumulator buffer, so it needs this layout even unsplit; group 1 and c_in >= 1 suffice).
std::optional<ConvTilePlan> plan_conv_split(const ConvGeom& g, std::uint64_t sram_bytes, const TilingOptions& opt,
                                            bool whole_too = false);

/// A Conv/GEMM layer's plan: plan_conv's, or, for a dense Conv (cin_split_applies) when
/// split_allowed and opt.cin_split, plan_conv_split's where no whole-input-channel tile fits or
/// where the split's estimated time is at most 1 / kSplitSpeedup of plan_conv's
/// (the split is not searched where plan_conv's estimate is already below kSplitSpeedup x a
/// lower bound: the layer's MACs at full array occupancy, its compulsory DDR bytes).
/// nullopt when neither fits. The plan's n_ci > 1 tells which was taken; `why` (if given) is
/// set to the two estimates where the split won over a whole-input-channel tile that fits.
std::optional<ConvTilePlan> plan_conv_layer(const ConvGeom& g, std::uint64_t sram_bytes, const TilingOptions& opt,
                                            bool split_allowed, std::string* why = nullptr);

/// SRAM bytes of the minimal split tile (one output channel x one output row x one input
/// channel): below it the layer is refused.
std::uint64_t conv_split_min_sram_bytes(const ConvGeom& g, const TilingOptions& opt);

}  // namespace npu::compiler
