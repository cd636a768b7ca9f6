// Given tiles (compiler/backend/tiling/tile_override.hpp): ONNXim's mapping notation, the fit
// checks against the scratchpad and the accumulator, unknown layers; and the tiler keeping a
// tile's partial sums within the accumulator (TilingOptions::accumulator_bytes).
#include <gtest/gtest.h>

#include <fstream>
#include <functional>

#include "npu/base/config_error.hpp"
#include "npu/compiler/backend/tiling/tile_override.hpp"
#include "npu/compiler/backend/tiling/tiling.hpp"

namespace {

using npu::compiler::parse_tile_mapping;

const char* kLayer1 =
    "[T] N1 C64 M64 P56 Q56 S3 R3 - [O] N1 C1 M8 P4 Q4 S1 R1 - [I] N1 C64 M8 P15 Q17 S3 R3";

std::string override_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const npu::ConfigError& e) {
    return e.what();
  }
  return "";
}

npu::HwConfig gemmini_like(std::uint64_t sram, std::uint64_t acc) {
  npu::HwConfig hw;
  hw.source = "gemmini-like";
  hw.mac_array.rows = hw.mac_array.cols = 8;
  hw.sram.capacity_bytes = sram;
  hw.accumulator.present = acc > 0;
  hw.accumulator.capacity_bytes = acc;
  return hw;
}

TEST(TileOverride, ParsesOnnximNotation) {
  const auto t = parse_tile_mapping(kLayer1, "x:1");
  EXPECT_EQ(t.total.c, 64);
  EXPECT_EQ(t.outer.m, 8);
  EXPECT_EQ(t.inner.p, 15);
  EXPECT_EQ(t.inner.q, 17);
  EXPECT_EQ(t.inner.s, 3);
  // A GEMM lists N, C, M; the rest stay 1.
  const auto g = parse_tile_mapping("[T] N512 C512 M1024 - [O] N13 C2 M26 - [I] N40 C256 M40", "x:2");
  EXPECT_EQ(g.inner.n, 40);
  EXPECT_EQ(g.inner.p, 1);
}

TEST(TileOverride, RejectsBadNotation) {
  EXPECT_NE(override_error_of([] { parse_tile_mapping("[T] N1 C3 - [O] N1 C1", "f.csv:3"); }).find("f.csv:3: error: the mapping"),
            std::string::npos);
  EXPECT_NE(override_error_of([] { parse_tile_mapping("[T] N1 X3 - [O] N1 - [I] N1", "f.csv:4"); }).find("'X3' is not a loop size"),
            std::string::npos);
  // 4 tiles of 13 rows = 52 < 56: the tiles leave rows out.
  EXPECT_NE(override_error_of([] { parse_tile_mapping("[T] P56 - [O] P4 - [I] P13", "f.csv:5"); })
                .find("dimension P: 4 tiles of 13 do not cover the total 56"),
            std::string::npos);
}

TEST(TileOverride, FootprintOfLayer1Tile) {
  // Input patch ((15-1)x1 + 3) x ((17-1)x1 + 3) = 17 x 19 pixels x 64 channels = 20672 B,
  // weights 3 x 3 x 64 x 8 = 4608 B: 25280 B. Partial sums 15 x 17 x 8 x 4 B = 8160 B.
  const auto f = npu::compiler::tile_footprint(parse_tile_mapping(kLayer1, "x"), 1, 1, 4);
  EXPECT_EQ(f.scratchpad_bytes, 25280u);
  EXPECT_EQ(f.accumulator_bytes, 8160u);
}

TEST(TileOverride, TileMustFitScratchpadAndAccumulator) {
  const npu::compiler::TileOverride o{"layer1", parse_tile_mapping(kLayer1, "t.csv:2"), "t.csv:2"};
  EXPECT_EQ(override_error_of([&] { npu::compiler::check_tile_fits(o, 1, gemmini_like(64 * 1024, 16 * 1024)); }), "");
  // 25280 B > a 16 KiB scratchpad.
  EXPECT_NE(override_error_of([&] { npu::compiler::check_tile_fits(o, 1, gemmini_like(16 * 1024, 16 * 1024)); })
                .find("t.csv:2: error: the tile of layer 'layer1' needs 25280 bytes of scratchpad"),
            std::string::npos);
  // 8160 B of partial sums > a 4 KiB accumulator.
  EXPECT_NE(override_error_of([&] { npu::compiler::check_tile_fits(o, 1, gemmini_like(64 * 1024, 4 * 1024)); })
                .find("needs 8160 bytes of accumulator"),
            std::string::npos);
}

TEST(TileOverride, UnknownLayerIsNamedWithASuggestion) {
  const std::vector<npu::compiler::TileOverride> o{{"conv_1", parse_tile_mapping(kLayer1, "t.csv:2"), "t.csv:2"}};
  const std::string e = override_error_of([&] { npu::compiler::check_override_layers(o, {"conv1", "conv2"}, "net"); });
  EXPECT_NE(e.find("t.csv:2: error: 'net' has no layer 'conv_1'"), std::string::npos) << e;
  EXPECT_NE(e.find("did you mean 'conv1'?"), std::string::npos) << e;
}

TEST(TileOverride, ReadsTheGroundTruthCsvAsAnOverrideFile) {
  const std::string path = testing::TempDir() + "/tiles.csv";
  std::ofstream(path) << "test,kind,mapping\nL1,conv," << kLayer1 << "\n";
  const auto rows = npu::compiler::read_tile_overrides(path);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].layer, "L1");
  EXPECT_EQ(rows[0].where, path + ":2");
  std::ofstream(path) << "layer,mapping\nL1," << kLayer1 << "\nL1," << kLayer1 << "\n";
  EXPECT_NE(override_error_of([&] { npu::compiler::read_tile_overrides(path); }).find("layer 'L1' is listed twice"),
            std::string::npos);
}

TEST(TileOverride, TilerKeepsPartialSumsInTheAccumulator) {
  // 1x1 conv 8 -> 64 channels over 16 x 16: with a 1 KiB accumulator a tile holds at most 256
  // int32 partial sums, i.e. co x rows x 16 <= 256.
  npu::compiler::ConvGeom g;
  g.c_in = 8, g.h_in = g.h_out = 16, g.w_in = g.w_out = 16, g.c_out = 64;
  npu::compiler::TilingOptions opt;
  opt.accumulator_bytes = 1024;
  const auto plan = npu::compiler::plan_conv(g, 64 * 1024, opt);
  ASSERT_TRUE(plan);
  EXPECT_LE(std::uint64_t(plan->co_tile) * plan->rows_tile * 16 * 4, 1024u) << plan->describe(g);
  // 256 B: 64 partial sums, so at most 4 channels of one 16-pixel row per tile.
  opt.accumulator_bytes = 256;
  const auto small = npu::compiler::plan_conv(g, 64 * 1024, opt);
  ASSERT_TRUE(small);
  EXPECT_LE(std::uint64_t(small->co_tile) * small->rows_tile * 16 * 4, 256u) << small->describe(g);
}

}  // namespace
