// A lower bound on a program's instruction count, from the lowered graph and each layer's tile
// plan, before code generation builds a single instruction: `npu compile --input-shape
// x=99999x3x16x16` is refused in a second instead of after minutes and gigabytes
// (docs/compiler.md "Program size limit").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "npu/compiler/backend/lowering/lowering.hpp"
#include "npu/compiler/backend/tiling/tiling.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace npu::compiler::codegen {

/// One layer's share of the bound.
struct LayerSizeBound {
  std::string layer;
  std::uint64_t instructions = 0;
  std::uint64_t images = 0;           ///< CONV/GEMM: images of the batch (0: other kinds)
  std::uint64_t tiles_per_image = 0;  ///< CONV/GEMM: n_co x n_row (x n_ci when split) of one image
  std::uint64_t steps = 0;            ///< vector and movement kinds: steps (tiles) of its tiling, at least
  std::string step_text;              ///< what each step holds at least, e.g. "LOAD, compute, STORE"
};

struct ProgramSizeBound {
  std::uint64_t instructions = 0;  ///< at most what generate() emits (a lower bound)
  LayerSizeBound largest;          ///< the layer with the largest share
};

/// A lower bound on the instructions generate() emits for `lg` at hw.sram.capacity_bytes
/// (before the program passes): per CONV/GEMM layer, from the tile plan gen_conv uses, one
/// compute per tile of each image, one STORE per output tile and one input LOAD per image and
/// row tile; per ACT/ELTWISE/POOL layer a LOAD, a compute and a STORE per step of its tiling
/// (streamed chunks of at most kStreamChunkElems elements and a quarter of the SRAM; pool
/// tiles of at most half the SRAM of output and ceil(C / 8) channels: program_size.cpp);
/// per COPY and LAYOUT layer the same from their chunk limits; for the other kinds (bilinear
/// Resize, Gather, Attention) one STORE per SRAM-full of output; 1 per host layer and per
/// layer in a depth-first stack (`in_stack[i]`: layer i is in one). The bound never exceeds the real count (tests/compiler
/// test_program_size.cpp checks it on the zoo), so refusing a program whose bound passes the
/// limit refuses only programs that code generation would refuse later. Throws nothing.
ProgramSizeBound program_size_bound(const LoweredGraph& lg, const HwConfig& hw, const TilingOptions& opt,
                                    const std::vector<bool>& in_stack);

/// Bytes of memory `npu compile` holds per instruction of a program at its peak (the
/// instruction with its layer and tensor names and token lists, and the steps code
/// generation builds first): measured with /usr/bin/time -v (docs/compiler.md "Program size
/// limit").
constexpr std::uint64_t kInstructionMemoryBytes = 300;

/// The memory, in GB (10^9 bytes), `instructions` instructions take while compiling.
inline double program_memory_gb(std::uint64_t instructions) {
  return double(instructions) * double(kInstructionMemoryBytes) / 1e9;
}

/// The tiling options of a CONV/GEMM layer as gen_conv plans it (conv.cpp): `opt` with the
/// element size, the epilogue's residual and input scale, int8 requantisation pairs and the batch.
TilingOptions conv_layer_options(const TilingOptions& opt, int act_bytes, const LayerSpec& L);

}  // namespace npu::compiler::codegen
