// A warning for CONV/GEMM layers whose params region crowds their tiles (params_region_warning.cpp).
#pragma once

#include <string>

#include "npu/compiler/driver/compiler.hpp"

namespace npu::compiler {

/// For each CONV/GEMM layer of r's kept program whose params region (reserved bytes per output
/// channel x every output channel, held in SRAM for the whole layer: docs/compiler.md "SRAM
/// layout") takes at least a quarter of the SRAM the program was compiled for and whose
/// output-channel tile is narrower than `array_cols` (the MAC array's columns), appends a
/// warning to r.warnings naming the layer, the region's bytes and share, and the tile it left
/// room for (e.g. llama-3.2-1b's LM head on the edge preset: 128,256 channels x 8 B = 1,026,048 B
/// of 1 MiB, `4co` tiles on a 32-column array). Its note in the report says the same. `tiling`
/// is the compile's tiling options (conv_layer_options adds each layer's requant pairs).
void warn_params_regions(CompileResult& r, const TilingOptions& tiling, int array_cols, const std::string& where);

/// The output channels of a CONV/GEMM tile from its report text ("4co x 1r x 1w (...)": 4); 0
/// when the text does not start so.
int tile_output_channels(const std::string& tile);

}  // namespace npu::compiler
