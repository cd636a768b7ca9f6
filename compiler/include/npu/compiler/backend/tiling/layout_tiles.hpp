// Tiling of a layout layer computed by MOVE (docs/compiler.md, "Layout ops"): the output is
// cut into contiguous tiles along its outer dims; for each tile, each piece's input box is
// loaded by strided LOADs (at most 3 dimensions each) into an input slot, packed in the input's
// own order, and one MOVE per piece scatters it into the output slot, which one STORE writes
// back. Every input element is loaded once per tile that needs it (once in all, except the
// repeated elements of an upsampling, which a MOVE repeats from SRAM) and every output element
// is stored once: the DDR bytes are the compulsory ones.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "npu/compiler/backend/lowering/lowering.hpp"
#include "npu/isa/instruction.hpp"

namespace npu::compiler {

struct LayoutTile {
  /// A strided LOAD of piece `piece`'s input: extent[0] contiguous elements, extent[1] rows
  /// stride[0] apart, extent[2] planes stride[1] apart (strides in elements), from element
  /// `in_elem` of the input to element `slot_elem` of the input slot (packed).
  struct Load {
    std::size_t piece = 0;
    std::uint64_t in_elem = 0;
    std::uint64_t slot_elem = 0;
    std::array<std::uint32_t, 3> extent{1, 1, 1};
    std::array<std::uint64_t, 2> stride{0, 0};
  };
  std::uint64_t out_first = 0;  ///< first output element of the tile
  std::uint64_t out_elems = 0;  ///< elements of the tile (contiguous in the output)
  std::vector<Load> loads;
  /// One per piece; in_addr / out_addr are element offsets into the input / output slot.
  std::vector<isa::MoveParams> moves;
};

struct LayoutTilePlan {
  std::vector<LayoutTile> tiles;  ///< in output order, covering it once
  std::uint64_t in_slot_elems = 0, out_slot_elems = 0;  ///< largest tile's input / output elements
  std::string describe;  ///< e.g. "3 x 192 of [3,6400,85]"
};

/// Plans the tiles of `pieces` (LayerSpec::layout) with each tile's input plus output at most
/// `max_tile_elems` elements and its output at most `max_out_elems` (a streaming chunk).
/// Where the split dimension is the input's contiguous one (every piece's stride 1 there), a
/// tile's count along it is a multiple of `burst_elems` (the DRAM burst in elements): a burst
/// cut between two tiles would be read by both (a transposed 64-byte KV-cache row cut into 54
/// and 10 read every burst twice); below one burst, a whole burst is taken when it fits
/// `max_tile_elems`, past the streaming chunk.
/// std::nullopt when not even one outer index fits (the caller reports the SRAM as too small).
/// Throws std::logic_error on pieces that break LayoutPiece's contract (a compiler bug).
std::optional<LayoutTilePlan> plan_layout_tiles(const std::vector<LayoutPiece>& pieces, std::uint64_t max_tile_elems,
                                                std::uint64_t max_out_elems, std::uint64_t burst_elems = 1);

}  // namespace npu::compiler
