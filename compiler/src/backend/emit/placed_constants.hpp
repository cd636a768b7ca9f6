// Where the program's constants live in DDR, for the two DDR-image files (ddr_image.cpp,
// ddr_image_int8.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "npu/compiler/backend/emit/ddr_image.hpp"
#include "npu/compiler/driver/compiler.hpp"

namespace npu::compiler {

/// DDR byte address of tensor `t` (a name of r.lowered.place: a graph tensor or a subview
/// "NAME@OFFSET+BYTES"): its region's declared address plus its offset in the region.
/// Throws std::logic_error when `t` has no place or its region is not declared (a compiler bug).
std::uint64_t placed_ddr_addr(const CompileResult& r, const std::string& t);

/// The constant graph tensor a place name stands for, and the byte offset of the place in it:
/// "W" -> (W, 0), "W@96+32" -> (W, 96); an empty name when it is no constant graph tensor.
/// Throws std::logic_error for a subview whose OFFSET is not a number.
std::pair<std::string, std::uint64_t> constant_of_place(const Graph& g, const std::string& place_name);

/// A constant graph tensor the program reads, and the DDR address of its element 0.
struct PlacedConstant {
  std::string name;
  std::uint64_t ddr_addr = 0;
};

/// Every constant graph tensor the program reads, once, in name order. A constant read only
/// through subviews "NAME@OFFSET+BYTES" (e.g. the per-window slices of a Swin block's attention
/// mask, one ELTWISE layer per window) is listed by NAME at the subview's address minus OFFSET:
/// the DDR image must hold the whole tensor, not just the constants placed under their own name.
/// Throws std::logic_error when two places of one constant disagree on its address, or a
/// subview's OFFSET is not a number.
std::vector<PlacedConstant> placed_constants(const CompileResult& r);

/// Throws std::logic_error naming the region when a region the program declares as a weight
/// (.tensor kind=weight) gets no byte of `image`: the program would read zeros where the
/// compiler meant values (as a constant read only through subviews once did). A region written
/// in part passes this check (the image's writers are trusted for the extent they write).
void check_every_weight_written(const CompileResult& r, const std::vector<DdrSegment>& image);

}  // namespace npu::compiler
