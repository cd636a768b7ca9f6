// `npu validate gemmini` (sim/validate/gemmini_validation.hpp): the tile pipeline by hand, the
// bad overrides, and the 24-layer comparison with Gemmini's RTL against the targets
// (docs/validation.md "Against RTL").
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <set>

#include "npu/base/config_error.hpp"
#include "npu/sim/validate/gemmini_validation.hpp"
#include "shared_data.hpp"

namespace {

const std::string kGt = "anchors/gemmini-rtl/onnxim/gemmini_gt.csv";

npu::HwConfig gemmini_8x8() { return npu::load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/gemmini-8x8.yaml"); }

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const npu::ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(GemminiValidation, PipelineOfTwoTilesByHand) {
  // gemmini-8x8: fixed memory, 100 ns at 1 GHz = 100 cycles, 16 GB/s = 16 B per cycle.
  // Load 1600 B: 100 + 100 = 200; store 160 B: 100 + 10 = 110; compute 500 per tile.
  // 200 (first load) + max(500, 200 next load) + max(500, 110 previous store) + 110 = 1310.
  const npu::HwConfig hw = gemmini_8x8();
  EXPECT_EQ(npu::sim::transfer_cycles(1600, hw), 200);
  EXPECT_EQ(npu::sim::pipeline_cycles({{500, 1600, 160}, {500, 1600, 160}}, hw), 1310);
}

TEST(GemminiValidation, OverrideOfAnUnknownLayerOrATooLargeTileIsRefused) {
  const std::string gt = npu::test::shared_path(kGt);
  NPU_REQUIRE_SHARED_OR_SKIP(gt);
  const auto layers = npu::sim::read_rtl_layers(gt);
  const npu::HwConfig hw = gemmini_8x8();
  const std::string path = testing::TempDir() + "/gemmini_tiles.csv";
  std::ofstream(path) << "layer,mapping\nResNet18_Conv_1,[T] N1 C3 M64 P112 Q112 S7 R7 - [O] N1 C1 M8 P8 Q7 S1 R1 - "
                         "[I] N1 C3 M8 P15 Q17 S7 R7\n";
  const std::string unknown = error_of([&] { npu::sim::validate_gemmini(layers, hw, npu::compiler::read_tile_overrides(path)); });
  EXPECT_NE(unknown.find(path + ":2: error: 'the ground-truth CSV' has no layer 'ResNet18_Conv_1'"), std::string::npos)
      << unknown;
  EXPECT_NE(unknown.find("did you mean 'ResNet18_Conv1'?"), std::string::npos) << unknown;
  // The whole of BERT's 512 x 512 x 1024 in one tile: 512 x 512 + 512 x 1024 B of operands.
  std::ofstream(path) << "layer,mapping\nBert_512x512x1024,[T] N512 C512 M1024 - [O] N1 C1 M1 - [I] N512 C512 M1024\n";
  const std::string big = error_of([&] { npu::sim::validate_gemmini(layers, hw, npu::compiler::read_tile_overrides(path)); });
  EXPECT_NE(big.find("needs 786432 bytes of scratchpad"), std::string::npos) << big;
  // 40 rows x 512 channels fit the scratchpad (40 x 64 + 64 x 512 = 35328 B) but not the
  // accumulator: 40 x 512 x 4 B = 81920 B > 16 KiB.
  std::ofstream(path) << "layer,mapping\nBert_512x512x1024,[T] N512 C512 M1024 - [O] N13 C8 M2 - [I] N40 C64 M512\n";
  const std::string acc = error_of([&] { npu::sim::validate_gemmini(layers, hw, npu::compiler::read_tile_overrides(path)); });
  EXPECT_NE(acc.find("needs 81920 bytes of accumulator"), std::string::npos) << acc;
}

TEST(GemminiValidation, GroundTruthTilesAreCheckedLikeOverrides) {
  // The ground truth's own mappings pass the same checks as an override's (a newcomer's
  // probe: a ground-truth tile of the whole output was costed where --tiles refused it).
  const std::string gt = npu::test::shared_path(kGt);
  NPU_REQUIRE_SHARED_OR_SKIP(gt);
  const npu::HwConfig hw = gemmini_8x8();
  auto layers = npu::sim::read_rtl_layers(gt);
  EXPECT_NO_THROW(npu::sim::validate_gemmini(layers, hw));
  // conv1 in one tile of 64 x 112 x 112 outputs: 3 x 229 x 229 input + 64 x 3 x 7 x 7 weights
  // = 157323 + 9408 = 166731 B of scratchpad > 65536.
  auto big = layers;
  big[0].mapping = npu::compiler::parse_tile_mapping(
      "[T] N1 C3 M64 P112 Q112 S7 R7 - [O] N1 C1 M1 P1 Q1 S1 R1 - [I] N1 C3 M64 P112 Q112 S7 R7", "gt:2");
  EXPECT_NE(error_of([&] { npu::sim::validate_gemmini(big, hw); }).find("needs 166731 bytes of scratchpad"),
            std::string::npos);
  // A mapping of another layer's shape ([T] M32 where conv1 has 64 output channels).
  auto other = layers;
  other[0].mapping = npu::compiler::parse_tile_mapping(
      "[T] N1 C3 M32 P112 Q112 S7 R7 - [O] N1 C1 M4 P8 Q7 S1 R1 - [I] N1 C3 M8 P15 Q17 S7 R7", "gt:2");
  EXPECT_NE(error_of([&] { npu::sim::validate_gemmini(other, hw); }).find("is not layer 'ResNet18_Conv1'"),
            std::string::npos);
  // Geometry that does not add up: out 50 x 50 from 224 x 224, 7 x 7, stride 2, pad 3 (112).
  auto geometry = layers;
  geometry[0].out_h = geometry[0].out_w = 50;
  geometry[0].mapping.total.p = geometry[0].mapping.total.q = 50;
  EXPECT_NE(error_of([&] { npu::sim::validate_gemmini(geometry, hw); }).find("(expected 112x112)"), std::string::npos);
  // A layer listed twice would count twice in the MAE.
  auto twice = layers;
  twice.push_back(layers[0]);
  EXPECT_NE(error_of([&] { npu::sim::validate_gemmini(twice, hw); }).find("'ResNet18_Conv1' is listed twice"),
            std::string::npos);
}

// Layers outside the 10 % band with the RTL's tiles, each with the RTL mechanism the model lacks
// (docs/validation.md "Against RTL"). The test fails if another layer leaves the band, or if
// one of these comes back inside it (then remove it here and in the docs).
const std::set<std::string> kOutsideBand = {"ResNet18_layer2_0_Conv2"};

TEST(GemminiValidation, TwentyFourLayersMeetTheTargets) {
  const std::string gt = npu::test::shared_path(kGt);
  NPU_REQUIRE_SHARED_OR_SKIP(gt);
  const auto layers = npu::sim::read_rtl_layers(gt);
  ASSERT_EQ(layers.size(), 24u);
  const npu::sim::ValidationResult r = npu::sim::validate_gemmini(layers, gemmini_8x8());
  ASSERT_EQ(r.rows.size(), layers.size());
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const auto& row = r.rows[i];
    SCOPED_TRACE(row.layer);
    EXPECT_EQ(std::fabs(row.given_err_pct) <= 10.0, kOutsideBand.count(row.layer) == 0) << row.given_err_pct;
    // The tiler is never worse than the given tiles by more than 10 %, except where the RTL
    // split the input channels (outer C > 1), which our tiler cannot (docs/validation.md).
    ASSERT_GT(row.tiler, 0) << row.tiler_note;
    if (row.tiler_vs_given_pct > 10.0) {
      EXPECT_GT(layers[i].mapping.outer.c, 1) << row.tiler_vs_given_pct;
      EXPECT_NE(row.tiler_note.find("input channels per tile"), std::string::npos) << row.tiler_note;
    }
  }
  EXPECT_LE(r.mae_pct, 3.0);
}

}  // namespace
