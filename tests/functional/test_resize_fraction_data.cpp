// Nearest Resize by a fraction, computed by MOVE per residue (resize_views.cpp), and bilinear
// Resize, computed by LOAD, ELTWISE and MOVE (codegen/resize_linear.cpp), run with data under
// every strategy: the outputs must equal the maps worked out here from the ONNX Resize
// definition exactly, and the reference interpreter's. Cubic and nearest maps that do not
// repeat are not computed: a run with data refuses them, naming the reason.
#include <gtest/gtest.h>

#include "functional_test_util.hpp"
#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/reference/reference_interpreter.hpp"
#include "npu/compiler/transforms/strategy.hpp"

namespace {

using namespace npu;
using compiler::Node;
using compiler::Tensor;
using compiler::testing::GraphBuilder;

// z [1,3,H,W] -> Resize (mode, coordinate mode, nearest mode) to [1,3,OH,OW] given by sizes.
GraphBuilder resize_graph(std::int64_t h, std::int64_t w, std::int64_t oh, std::int64_t ow, const std::string& mode,
                          const std::string& ctm, const std::string& nearest) {
  GraphBuilder b("resize");
  b.input("z", {1, 3, h, w});
  Tensor& sizes = b.add_tensor("sizes", {4}, true);
  sizes.type = compiler::ElemType::Int64;
  sizes.int_data = {1, 3, oh, ow};
  b.add_tensor("u", {1, 3, oh, ow});
  Node& r = b.node("resize", "Resize", {"z", "", "", "sizes"}, {"u"});
  r.attrs["mode"] = mode;
  r.attrs["coordinate_transformation_mode"] = ctm;
  r.attrs["nearest_mode"] = nearest;
  b.output("u");
  return b;
}

std::vector<float> plane_values(std::int64_t h, std::int64_t w) {  // z[c][i][j] = 100c + 10i + j
  std::vector<float> v;
  for (int c = 0; c < 3; ++c)
    for (std::int64_t i = 0; i < h; ++i)
      for (std::int64_t j = 0; j < w; ++j) v.push_back(float(100 * c + 10 * i + j));
  return v;
}

// Runs g under every strategy on a 1 KiB and a 1 MiB SRAM; u must be 100c + 10 fy[y] + fx[x]
// (z is affine in i and j, so a bilinear resize of it is too: fy, fx are source coordinates).
void expect_moves(const GraphBuilder& b, const std::vector<float>& fy, const std::vector<float>& fx) {
  const auto& zs = b.g.tensors.at("z").shape;
  const std::vector<float> zv = plane_values(zs[2], zs[3]);
  std::vector<float> want;
  for (int c = 0; c < 3; ++c)
    for (float y : fy)
      for (float x : fx) want.push_back(float(100 * c) + 10 * y + x);
  compiler::RefTensorMap in;
  in["z"].shape = zs;
  in["z"].f = zv;
  EXPECT_EQ(compiler::run_reference(b.g, in).at("u").f, want) << "the hand-derived map disagrees with the reference";
  for (std::uint64_t sram : {std::uint64_t(1024), std::uint64_t(1) << 20}) {
    const HwConfig hw = test::fp32_hw(sram);
    for (const std::string& s : compiler::builtin_strategy_names()) {
      const auto c = compiler::compile(b.g, hw, compiler::builtin_strategy(s));
      const auto r = test::run_forked(c, hw, {{"z", zv}}, true);
      ASSERT_TRUE(r.ok) << s << " " << sram << ": " << r.error;
      EXPECT_EQ(r.outputs.at("u"), want) << s << " " << sram;
    }
  }
}

TEST(ResizeFractionData, NearestHalfPixelUpscaleFourToSix) {
  // half_pixel, scale 1.5: x = (o + 0.5) / 1.5 - 0.5 = -1/6, 1/2, 7/6, 11/6, 5/2, 19/6 for
  // o = 0..5; round_prefer_floor (1/2 -> 0, 5/2 -> 2) and clamping give 0, 0, 1, 2, 2, 3:
  // period 3 outputs per 2 inputs (residues 0, 1, 2 read 0, 0, 1).
  expect_moves(resize_graph(4, 4, 6, 6, "nearest", "half_pixel", "round_prefer_floor"), {0, 0, 1, 2, 2, 3},
               {0, 0, 1, 2, 2, 3});
}

TEST(ResizeFractionData, NearestDownscaleSixToFourAndUpscaleFourToSixRoundingUp) {
  // pytorch_half_pixel, round_prefer_ceil. Rows 6 -> 4 (scale 2/3): x = (o + 0.5) 1.5 - 0.5 =
  // 0.25, 1.75, 3.25, 4.75 -> 0, 2, 3, 5 (period 2 outputs per 3 inputs). Columns 4 -> 6
  // (scale 1.5): x = -1/6, 1/2, 7/6, 11/6, 5/2, 19/6 -> 0, 1, 1, 2, 3, 3 (halves round up).
  expect_moves(resize_graph(6, 4, 4, 6, "nearest", "pytorch_half_pixel", "round_prefer_ceil"), {0, 2, 3, 5},
               {0, 1, 1, 2, 3, 3});
}

TEST(ResizeFractionData, BilinearHalfPixelTwoToFour) {
  // half_pixel, scale 2: x = (o + 0.5) / 2 - 0.5 = -0.25, 0.25, 0.75, 1.25, clamped into [0, 1]:
  // 0, 0.25, 0.75, 1, so along each axis [a, b] -> a, 0.75a + 0.25b, 0.25a + 0.75b, b. z's rows
  // are 0 and 10 (+ 100c), its columns 0 and 1: u = 100c + {0, 2.5, 7.5, 10} + {0, 0.25, 0.75, 1}.
  expect_moves(resize_graph(2, 2, 4, 4, "linear", "half_pixel", "round_prefer_floor"), {0, 0.25f, 0.75f, 1},
               {0, 0.25f, 0.75f, 1});
}

TEST(ResizeFractionData, BilinearAlignCornersThreeToFiveAndFourToSix) {
  // align_corners: rows 3 -> 5, x = o (3 - 1) / (5 - 1) = 0, 0.5, 1, 1.5, 2; columns 4 -> 6,
  // x = o (4 - 1) / (6 - 1) = 0.6 o. z is affine, so u = 100c + 10 x_row + x_col (0.6 is not a
  // binary fraction: the reference is checked to 1e-4 here, the run against the reference).
  // 1 KiB of SRAM: one output row of one plane per tile.
  const GraphBuilder b = resize_graph(3, 4, 5, 6, "linear", "align_corners", "round_prefer_floor");
  const std::vector<float> fy = {0, 0.5f, 1, 1.5f, 2};
  compiler::RefTensorMap in;
  in["z"].shape = {1, 3, 3, 4};
  in["z"].f = plane_values(3, 4);
  const std::vector<float> ref = compiler::run_reference(b.g, in).at("u").f;
  for (int c = 0; c < 3; ++c)
    for (int y = 0; y < 5; ++y)
      for (int x = 0; x < 6; ++x)
        EXPECT_NEAR(ref[std::size_t((c * 5 + y) * 6 + x)], 100 * c + 10 * fy[std::size_t(y)] + x * 0.6, 1e-4);
  for (const std::string& s : compiler::builtin_strategy_names()) {
    const HwConfig hw = test::fp32_hw(1024);
    const auto r = test::run_forked(compiler::compile(b.g, hw, compiler::builtin_strategy(s)), hw, {{"z", in["z"].f}}, true);
    ASSERT_TRUE(r.ok) << s << ": " << r.error;
    EXPECT_LT(test::rel_err(r.outputs.at("u"), test::to_double(ref)), 1e-6) << s;
  }
}

TEST(ResizeFractionData, CubicAndNonRepeatingNearestAreRefusedNamingTheReason) {
  // Cubic and a nearest map that does not repeat (align_corners 4 -> 6: 0, 1, 1, 2, 2, 3, and
  // i(4) != i(1) + 2): costed only; a run with data stops with the reason, never a number.
  const HwConfig hw = test::fp32_hw();
  const std::pair<const char*, const char*> cases[] = {{"cubic", "mode 'cubic'"}, {"nearest", "does not repeat"}};
  for (const auto& [mode, reason] : cases) {
    const GraphBuilder b = resize_graph(4, 4, 6, 6, mode, "align_corners", "round_prefer_floor");
    const auto r = test::run_forked(compiler::compile(b.g, hw, compiler::builtin_strategy("none")), hw,
                                    {{"z", plane_values(4, 4)}}, true);
    EXPECT_FALSE(r.ok) << mode;
    EXPECT_NE(r.error.find(reason), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("not computed"), std::string::npos) << r.error;
  }
}

}  // namespace
