// A tile of a CONV/GEMM layer and what conv.cpp (the tile loop, CONV tiles) and gemm.cpp (GEMM
// tiles) share. Internal to codegen/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <vector>

#include "backend/codegen/layer_codegen.hpp"

namespace npu::compiler::codegen {

/// One tile of a CONV/GEMM layer: output channels [co0, co0 + cot) x output rows
/// [ro0, ro0 + hot) of image b, the idx-th in the layer's loop order.
struct ConvTile {
  int j = 0, r = 0, b = 0;
  std::size_t idx = 0;
  int co0 = 0, cot = 0, ro0 = 0, hot = 0;
  std::uint64_t X = 0, Y = 0, R = 0;  // image b's input, output and residual in DDR
  std::uint32_t out_slot = 0;
};

/// The epilogue of the tile with first output channel `co0`, the idx-th of the layer: bias,
/// residual (ping-pong slot), activation and int8 requantisation pairs, at their SRAM places.
isa::Epilogue epilogue(const LayerSpec& L, const ConvTilePlan& p, int co0, std::size_t idx);

/// SRAM of a CONV/GEMM layer's requantisation pairs: after its bias in the params block.
inline std::uint32_t requant_base(const ConvTilePlan& p, const ConvGeom& g) {
  return p.sram.params + std::uint32_t(g.c_out) * isa::kParamElemBytes;
}

/// (co tile, row tile, image) in run order (conv.cpp). A batch runs every image on a weight
/// tile while it is resident (weights loaded once per batch); input-resident layers take the
/// images one after another.
std::vector<std::tuple<int, int, int>> conv_tile_order(const ConvTilePlan& p, int images, bool weights_resident);

/// The idx-th tile of the layer, (co tile j, row tile r, image b) = jrb: its channels, rows,
/// image addresses in DDR and output slot (conv.cpp).
ConvTile conv_tile(const GenCtx& ctx, const LayerSpec& L, const ConvTilePlan& p, const std::tuple<int, int, int>& jrb,
                   std::size_t idx);

/// The loads of the first tile that stay resident for the layer (conv.cpp): the gate's c_in
/// scales, the bias and the int8 requantisation pairs.
void add_resident_params(const GenCtx& ctx, const LayerSpec& L, const ConvTilePlan& p, Step& s);

/// A Conv split along input channels (conv_split.cpp; plan p with p.n_ci > 1): per output tile
/// one CONV per input-channel group, partial sums in SRAM (acc_in / acc_out), the epilogue
/// and the STORE on the last group.
std::vector<Step> gen_conv_split(GenCtx& ctx, const LayerSpec& L, const ConvTilePlan& p);

/// A GEMM tile (gemm.cpp): A rows [ro0, ro0+hot) x K (row-major); B columns [co0, co0+cot).
void gemm_step(const GenCtx& ctx, const LayerSpec& L, const ConvTilePlan& p, const ConvTile& t, Slots& in, Slots& w,
               Step& s);

}  // namespace npu::compiler::codegen
