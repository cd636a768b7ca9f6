// plan_layout_tiles on hand-worked pieces: the tiles, their strided LOADs and MOVEs.
#include <gtest/gtest.h>

#include <map>

#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/backend/tiling/layout_tiles.hpp"
#include "test_compile_graphs.hpp"

namespace {

using npu::compiler::LayoutPiece;
using npu::compiler::plan_layout_tiles;

TEST(LayoutTiles, TransposeOfAYoloHeadTilesRowsAndLoadsColumnsStrided) {
  // [3,85,20] -> [3,20,85] (YOLO's Transpose after the Reshape): over the output dims
  // (a, w, k), in strides (1700, 1, 20), out strides packed (1700, 85, 1).
  LayoutPiece p;
  p.input = "x";
  p.dims = {3, 20, 85};
  p.in_stride = {1700, 1, 20};
  p.out_stride = {1700, 85, 1};
  p.outer = 3;
  // A whole anchor needs 1700 in + 1700 out > 2000; one w row 85 + 85. Rows per tile: out
  // 85 c <= 1000 and 170 c <= 2000 -> c = 11: per anchor tiles of 11 and 9 rows, 6 in all.
  const auto plan = plan_layout_tiles({p}, 2000, 1000);
  ASSERT_TRUE(plan);
  ASSERT_EQ(plan->tiles.size(), 6u);
  EXPECT_EQ(plan->out_slot_elems, 935u);
  EXPECT_EQ(plan->in_slot_elems, 935u);
  const auto& t0 = plan->tiles[0];
  EXPECT_EQ(t0.out_first, 0u);
  EXPECT_EQ(t0.out_elems, 935u);
  // The input box [85 k][11 w] is one LOAD: 11 contiguous w, 85 rows 20 elements apart.
  ASSERT_EQ(t0.loads.size(), 1u);
  EXPECT_EQ(t0.loads[0].in_elem, 0u);
  EXPECT_EQ(t0.loads[0].extent, (std::array<std::uint32_t, 3>{11, 85, 1}));
  EXPECT_EQ(t0.loads[0].stride[0], 20u);
  // MOVE innermost first: k (85, slot stride 11, out stride 1), w (11, slot stride 1, out 85).
  ASSERT_EQ(t0.moves.size(), 1u);
  const auto& m = t0.moves[0];
  EXPECT_EQ(m.rank, 2);
  EXPECT_EQ(m.extent[0], 85u);
  EXPECT_EQ(m.extent[1], 11u);
  EXPECT_EQ(m.in_stride[0], 11u);
  EXPECT_EQ(m.in_stride[1], 1u);
  EXPECT_EQ(m.out_stride[0], 1u);
  EXPECT_EQ(m.out_stride[1], 85u);
  // Second tile: rows 11..19 of anchor 0; fourth: anchor 1 from its first input element 1700.
  EXPECT_EQ(plan->tiles[1].out_first, 935u);
  EXPECT_EQ(plan->tiles[1].out_elems, 765u);
  EXPECT_EQ(plan->tiles[1].loads[0].in_elem, 11u);
  EXPECT_EQ(plan->tiles[1].loads[0].extent[0], 9u);
  EXPECT_EQ(plan->tiles[2].out_first, 1700u);
  EXPECT_EQ(plan->tiles[2].loads[0].in_elem, 1700u);
  // Every output element is in exactly one tile.
  std::uint64_t next = 0;
  for (const auto& t : plan->tiles) {
    EXPECT_EQ(t.out_first, next);
    next += t.out_elems;
  }
  EXPECT_EQ(next, 3u * 20u * 85u);
}

TEST(LayoutTiles, ConcatPiecesShareTheOuterDimsAndUpsamplingLoadsEachInputOnce) {
  // Concat along the last axis of [4,2] and [4,3] into [4,5]: outer dim 4 (out stride 5 = the
  // block of one outer index), pieces of 2 and 3 columns at out offsets 0 and 2.
  LayoutPiece a, b;
  a.input = "a", b.input = "b";
  a.dims = {4, 2}, b.dims = {4, 3};
  a.in_stride = {2, 1}, b.in_stride = {3, 1};
  a.out_stride = {5, 1}, b.out_stride = {5, 1};
  b.out_offset = 2;
  a.outer = b.outer = 1;
  // Two rows per tile: out 10 <= 10, in 4 + 6 = 10, total 20 <= 20.
  const auto plan = plan_layout_tiles({a, b}, 20, 10);
  ASSERT_TRUE(plan);
  ASSERT_EQ(plan->tiles.size(), 2u);
  const auto& t1 = plan->tiles[1];
  EXPECT_EQ(t1.out_first, 10u);
  ASSERT_EQ(t1.loads.size(), 2u);
  EXPECT_EQ(t1.loads[0].in_elem, 4u);   // a rows 2..3 start at 2 x 2
  EXPECT_EQ(t1.loads[0].extent[0], 4u);  // contiguous: merged into one run
  EXPECT_EQ(t1.loads[1].in_elem, 6u);   // b rows 2..3 start at 2 x 3
  EXPECT_EQ(t1.loads[1].slot_elem, 4u);  // after a's 4 elements
  ASSERT_EQ(t1.moves.size(), 2u);
  EXPECT_EQ(t1.moves[1].in_addr, 4u);
  EXPECT_EQ(t1.moves[1].out_addr, 2u);  // column 2 of the tile
  EXPECT_EQ(t1.moves[1].out_stride[1], 5u);

  // Nearest 2x upsampling of [2 planes][3][4]: dims (c, h, fh, w, fw), in strides (12, 4, 0,
  // 1, 0). One plane per tile: the LOAD brings its 12 elements once; the MOVE repeats them.
  LayoutPiece u;
  u.input = "z";
  u.dims = {2, 3, 2, 4, 2};
  u.in_stride = {12, 4, 0, 1, 0};
  u.out_stride = {48, 16, 8, 2, 1};
  u.outer = 5;
  const auto up = plan_layout_tiles({u}, 60, 48);
  ASSERT_TRUE(up);
  ASSERT_EQ(up->tiles.size(), 2u);
  EXPECT_EQ(up->tiles[1].loads.size(), 1u);
  EXPECT_EQ(up->tiles[1].loads[0].in_elem, 12u);
  EXPECT_EQ(up->tiles[1].loads[0].extent[0], 12u);
  EXPECT_EQ(up->tiles[1].moves[0].elems(), 48u);
  EXPECT_EQ(up->in_slot_elems, 12u);
  // Not even one element of one outer index fits: no plan.
  EXPECT_FALSE(plan_layout_tiles({a, b}, 6, 10));
}

// A layout op with no MOVE view (a bilinear Resize interpolates) is only costed: the compile
// report says so on its row, while a nearest Resize and a Transpose are computed (no note).
TEST(LayoutTiles, CostedOnlyLayoutLayersAreNotedInTheCompileReport) {
  npu::compiler::testing::GraphBuilder b;
  const std::string x = b.input("x", {1, 4, 6, 6});
  npu::compiler::Tensor& sc = b.add_tensor("scales", {4}, true);
  sc.float_data = {1, 1, 2, 2};
  b.add_tensor("lin", {1, 4, 12, 12});
  b.node("bilinear", "Resize", {x, "", "scales"}, {"lin"}).attrs["mode"] = std::string("linear");
  b.add_tensor("near", {1, 4, 12, 12});
  npu::compiler::Node& n = b.node("nearest", "Resize", {x, "", "scales"}, {"near"});
  n.attrs["mode"] = std::string("nearest");
  n.attrs["coordinate_transformation_mode"] = std::string("asymmetric");
  n.attrs["nearest_mode"] = std::string("floor");
  b.add_tensor("tr", {1, 4, 6, 6});
  b.node("transpose", "Transpose", {x}, {"tr"}).attrs["perm"] = std::vector<std::int64_t>{0, 1, 3, 2};
  b.add_tensor("cub", {1, 4, 12, 12});
  b.node("cubic", "Resize", {x, "", "scales"}, {"cub"}).attrs["mode"] = std::string("cubic");
  for (const char* o : {"lin", "near", "tr", "cub"}) b.output(o);
  const auto r = npu::compiler::compile(b.g, npu::compiler::testing::edge_like_hw(),
                                        npu::compiler::builtin_strategy("none"));
  std::map<std::string, std::string> note;
  for (const auto& row : r.report.layers) note[row.layer] = row.note;
  // A cubic Resize has no lowering that computes it; a bilinear one is the int8 blend on this
  // int8 config (ResizeBilinearInt8Npu.*), computed, so it carries no such note.
  EXPECT_EQ(note.at("cubic"), "costed only: an identity pass stands in for Resize (no MOVE lowering for this "
                              "form), so a run with data refuses it");
  EXPECT_EQ(note.at("bilinear"), "");
  EXPECT_EQ(note.at("nearest"), "");
  EXPECT_EQ(note.at("transpose"), "");
}

}  // namespace


TEST(LayoutTiles, ATransposedKvCacheRowIsNotCutInsideADramBurst) {
  // GPT-2's K cache of one head, [302 positions, 64] int8 -> K^T [64, 302]: over the output
  // dims (d, s), in strides (1, 64), out strides (302, 1); one d index is a block of 302.
  LayoutPiece p;
  p.input = "k";
  p.dims = {64, 302};
  p.in_stride = {1, 64};
  p.out_stride = {302, 1};
  p.outer = 1;
  // The streaming chunk of 16,384 elements alone gives 16384 / 302 = 54 d per tile: tiles of
  // 54 and 10, each input row's 64-byte burst read by both (the new-user finding: 2x the bytes).
  const auto chunk = plan_layout_tiles({p}, 1000000, 16384);
  ASSERT_TRUE(chunk);
  ASSERT_EQ(chunk->tiles.size(), 2u);
  EXPECT_EQ(chunk->tiles[0].loads[0].extent, (std::array<std::uint32_t, 3>{54, 302, 1}));
  // With 64-element bursts the split dim (d: stride 1 in the input) takes a whole burst, 64 x
  // 302 in + out = 38,656 elements <= the SRAM's 1,000,000: one tile, one contiguous LOAD.
  const auto whole = plan_layout_tiles({p}, 1000000, 16384, 64);
  ASSERT_TRUE(whole);
  ASSERT_EQ(whole->tiles.size(), 1u);
  EXPECT_EQ(whole->tiles[0].loads[0].extent, (std::array<std::uint32_t, 3>{19328, 1, 1}));
  // 32-element bursts: 54 rounds down to 32, two tiles of 32 that share no burst.
  const auto half = plan_layout_tiles({p}, 1000000, 16384, 32);
  ASSERT_TRUE(half);
  ASSERT_EQ(half->tiles.size(), 2u);
  EXPECT_EQ(half->tiles[1].loads[0].in_elem, 32u);
  EXPECT_EQ(half->tiles[1].loads[0].extent, (std::array<std::uint32_t, 3>{32, 302, 1}));
  // When a whole burst does not fit the SRAM (64 x 302 x 2 > 30,000), the chunk's 54 stays.
  const auto small = plan_layout_tiles({p}, 30000, 16384, 64);
  ASSERT_TRUE(small);
  EXPECT_EQ(small->tiles[0].loads[0].extent[0], 49u);  // (54: 32,616 > 30,000) 30000 / 604 = 49
}
