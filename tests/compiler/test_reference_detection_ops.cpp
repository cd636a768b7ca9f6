// Reference interpreter: NonZero, TopK and GridSample (detection_ops.cpp), on tiny tensors whose
// expected values are derived by hand in the comments from the ONNX operator spec. The same
// ops against ONNX Runtime: test_reference_ort.cpp (OrtDetectionOps); GridSample's bicubic and
// reflection modes also against ONNX's own node tests (test_reference_conformance.cpp).
#include <gtest/gtest.h>

#include "npu/hw_config/hw_config.hpp"
#include "reference_test_util.hpp"

namespace npu::compiler {
namespace {

using testing::expect_floats;
using testing::OneOp;
using V = std::vector<std::int64_t>;

void expect_ints(const RefTensor& t, const V& shape, const V& want) {
  ASSERT_FALSE(t.is_float());
  EXPECT_EQ(t.shape, shape);
  EXPECT_EQ(t.i, want);
}

// ---- NonZero -----------------------------------------------------------------------------

TEST(ReferenceNonZero, SpecExampleCoordinatesInRowMajorOrder) {
  // ONNX example: [[1, 0], [1, 1]] -> non-zeros at (0,0), (1,0), (1,1): rows [0,1,1], cols [0,0,1].
  OneOp op("NonZero");
  op.in("x", {2, 2}, {1, 0, 1, 1});
  expect_ints(op.y(), {2, 3}, {0, 1, 1, 0, 0, 1});
}

TEST(ReferenceNonZero, IntegerRank3AndNoHits) {
  // [2,1,3] = [[[0,5,0]], [[0,0,-2]]]: flat 1 -> (0,0,1), flat 5 -> (1,0,2); -2 counts.
  OneOp op("NonZero");
  op.ints("x", {2, 1, 3}, {0, 5, 0, 0, 0, -2});
  expect_ints(op.y(), {3, 2}, {0, 1, 0, 0, 1, 2});
  // All zeros (and -0.0f == 0): [rank, 0].
  OneOp none("NonZero");
  none.in("x", {3}, {0.0f, -0.0f, 0.0f});
  expect_ints(none.y(), {1, 0}, {});
}

// ---- TopK --------------------------------------------------------------------------------

TEST(ReferenceTopK, LargestAlongLastAxisWithKInput) {
  // Rows 0..3, 4..7, 8..11, K = 3: the three largest of each row, descending, and their columns.
  OneOp op("TopK", 2);
  op.in("x", {3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}).ints("k", {1}, {3});
  const RefTensorMap out = op.run();
  expect_floats(out.at("y0"), {3, 3}, {3, 2, 1, 7, 6, 5, 11, 10, 9});
  expect_ints(out.at("y1"), {3, 3}, {3, 2, 1, 3, 2, 1, 3, 2, 1});
}

TEST(ReferenceTopK, TiesKeepTheLowerIndexLargestAndSmallest) {
  // [2, 7, 2, 7, 1]: largest 3 = 7 (index 1), 7 (3), 2 (0); smallest 3 = 1 (4), 2 (0), 2 (2).
  OneOp big("TopK", 2);
  big.in("x", {1, 5}, {2, 7, 2, 7, 1}).ints("k", {1}, {3});
  RefTensorMap out = big.run();
  expect_floats(out.at("y0"), {1, 3}, {7, 7, 2});
  expect_ints(out.at("y1"), {1, 3}, {1, 3, 0});
  OneOp small("TopK", 2);
  small.in("x", {1, 5}, {2, 7, 2, 7, 1}).ints("k", {1}, {3});
  small.attr("largest", std::int64_t{0});
  out = small.run();
  expect_floats(out.at("y0"), {1, 3}, {1, 2, 2});
  expect_ints(out.at("y1"), {1, 3}, {4, 0, 2});
}

TEST(ReferenceTopK, AxisZeroAndOpset1AttributeK) {
  // [[1,6],[3,4],[3,5]], k = 2 along axis 0: column 0 -> 3 (row 1), 3 (row 2) (tie: lower row
  // first); column 1 -> 6 (row 0), 5 (row 2). Output [2, 2] laid out row-major.
  OneOp op("TopK", 2);
  op.in("x", {3, 2}, {1, 6, 3, 4, 3, 5});
  op.attr("axis", std::int64_t{0}).attr("k", std::int64_t{2});
  const RefTensorMap out = op.run();
  expect_floats(out.at("y0"), {2, 2}, {3, 6, 3, 5});
  expect_ints(out.at("y1"), {2, 2}, {1, 0, 2, 2});
}

TEST(ReferenceTopK, KLargerThanTheAxisIsAnErrorNamingBoth) {
  OneOp op("TopK", 2);
  op.in("x", {1, 4}, {1, 2, 3, 4}).ints("k", {1}, {5});
  try {
    op.run();
    FAIL() << "expected an error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("K = 5 is outside [0, 4]"), std::string::npos) << e.what();
  }
}

// ---- GridSample --------------------------------------------------------------------------

// X = [[1, 2], [3, 4]] (one 2x2 plane); grid points (x, y), x along W.
OneOp grid_op(const std::vector<float>& points, const std::string& mode, const std::string& pad, int align) {
  OneOp op("GridSample");
  const std::int64_t n = std::int64_t(points.size() / 2);
  op.in("x", {1, 1, 2, 2}, {1, 2, 3, 4}).in("grid", {1, 1, n, 2}, points);
  op.attr("mode", mode).attr("padding_mode", pad).attr("align_corners", std::int64_t{align});
  return op;
}

TEST(ReferenceGridSample, BilinearAlignCorners) {
  // align_corners=1: ix = (x + 1) / 2 (W - 1) = (x + 1) / 2. (-1,-1) -> pixel (0,0) = 1;
  // (1,1) -> 4; (0,0) -> (0.5, 0.5), the mean 2.5; (0.5,-1) -> ix 0.75 on row 0: 1 + 0.75 = 1.75.
  OneOp op = grid_op({-1, -1, 1, 1, 0, 0, 0.5f, -1}, "bilinear", "zeros", 1);
  expect_floats(op.y(), {1, 1, 1, 4}, {1, 4, 2.5f, 1.75f});
}

TEST(ReferenceGridSample, BilinearZerosBorderReflectionWithoutAlignCorners) {
  // align_corners=0: ix = ((x + 1) W - 1) / 2 = x + 0.5 for W = 2.
  //  (0,0)   -> (0.5, 0.5): 2.5 in every mode.
  //  (-1,-1) -> (-0.5, -0.5): the four taps (-1|0, -1|0) weigh 1/4 each; zeros: only (0,0)
  //             is inside -> 1/4; border: -0.5 is on the border, taps clamp to (0,0) -> 1.
  //  (2,0)   -> ix 2.5 past hi = W - 0.5 = 1.5: border clamps to 1 -> column 1 at iy 0.5 =
  //             (2 + 4) / 2 = 3; reflection: 1.5 - (2.5 - 1.5) = 0.5 -> 2.5; zeros: taps at
  //             columns 2 and 3, all outside -> 0.
  const std::vector<float> pts = {0, 0, -1, -1, 2, 0};
  expect_floats(grid_op(pts, "bilinear", "zeros", 0).y(), {1, 1, 1, 3}, {2.5f, 0.25f, 0});
  expect_floats(grid_op(pts, "bilinear", "border", 0).y(), {1, 1, 1, 3}, {2.5f, 1, 3});
  expect_floats(grid_op(pts, "bilinear", "reflection", 0).y(), {1, 1, 1, 3}, {2.5f, 1, 2.5f});
  // opset 20 spells bilinear "linear": same values.
  expect_floats(grid_op(pts, "linear", "zeros", 0).y(), {1, 1, 1, 3}, {2.5f, 0.25f, 0});
}

TEST(ReferenceGridSample, NearestRoundsHalfToEvenBeforePadding) {
  // align_corners=0, ix = x + 0.5: (0,0) -> (0.5, 0.5) rounds to (0, 0) -> 1;
  // (0.1, 0.2) -> (0.6, 0.7) -> (1, 1) -> 4; (1, -1) -> ix 1.5 -> 2 (half to even), iy -0.5 ->
  // -0 = 0: zeros reads column 2 -> 0, border clamps 2 > 1.5 to column 1 -> 2.
  const std::vector<float> pts = {0, 0, 0.1f, 0.2f, 1, -1};
  expect_floats(grid_op(pts, "nearest", "zeros", 0).y(), {1, 1, 1, 3}, {1, 4, 0});
  expect_floats(grid_op(pts, "nearest", "border", 0).y(), {1, 1, 1, 3}, {1, 4, 2});
}

TEST(ReferenceGridSample, BicubicAtPixelCentresReturnsThePixel) {
  // Keys' kernel at t = 0 weighs the 4 taps (0, 1, 0, 0): at a pixel centre the cubic sample
  // is the pixel. X = 1..9 (3x3), align_corners=1: (0,0) -> centre (1,1) = 5; (1,-1) ->
  // (row 0, column 2) = 3.
  OneOp op("GridSample");
  op.in("x", {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}).in("grid", {1, 1, 2, 2}, {0, 0, 1, -1});
  op.attr("mode", std::string("bicubic")).attr("align_corners", std::int64_t{1});
  expect_floats(op.y(), {1, 1, 1, 2}, {5, 3}, 1e-6f);
}

TEST(ReferenceGridSample, BadModeAndGridShapeAreErrors) {
  OneOp op = grid_op({0, 0}, "area", "zeros", 0);
  try {
    op.run();
    FAIL() << "expected an error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("mode 'area' is not an ONNX GridSample mode"), std::string::npos) << e.what();
  }
  OneOp bad("GridSample");
  bad.in("x", {1, 1, 2, 2}, {1, 2, 3, 4}).in("grid", {1, 1, 1, 3}, {0, 0, 0});
  try {
    bad.run();
    FAIL() << "expected an error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("grid must be N x H_out x W_out x 2"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace npu::compiler

// ---- 3-D windows (Conv3d, MaxPool3d, AveragePool3d on NCDHW) ---------------------------------

namespace npu::compiler {
namespace {

TEST(ReferenceConv3d, DepthTapsPaddingAndStride) {
  // X depth 1, 2, 3 (H = W = 1), W depth taps 1, 10, 100, depth pads 1: out[d] = sum_kd
  // W[kd] x[d - 1 + kd] with x = 0 outside: d0 = 10*1 + 100*2 = 210, d1 = 1 + 20 + 300 = 321,
  // d2 = 2 + 30 = 32. Stride 2: depths 0 and 2 only.
  OneOp op("Conv");
  op.in("x", {1, 1, 3, 1, 1}, {1, 2, 3}).in("w", {1, 1, 3, 1, 1}, {1, 10, 100});
  op.attr("pads", V{1, 0, 0, 1, 0, 0});
  expect_floats(op.y(), {1, 1, 3, 1, 1}, {210, 321, 32});
  op.attr("strides", V{2, 1, 1});
  expect_floats(op.y(), {1, 1, 2, 1, 1}, {210, 32});
}

TEST(ReferenceConv3d, FullTwoByTwoByTwoKernelAndBias) {
  // X = 1..8 as 2x2x2, W all ones 2x2x2, bias 0.5: one output, 1 + ... + 8 + 0.5 = 36.5.
  // Two output channels (second W all 2, bias 0): 72.
  OneOp op("Conv");
  std::vector<float> w(16, 1.0f);
  std::fill(w.begin() + 8, w.end(), 2.0f);
  op.in("x", {1, 1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}).in("w", {2, 1, 2, 2, 2}, w).in("b", {2}, {0.5f, 0});
  expect_floats(op.y(), {1, 2, 1, 1, 1}, {36.5f, 72});
}

TEST(ReferencePool3d, MaxPoolAndAveragePoolCountIncludePad) {
  // MaxPool 2x2x2 on X = 1..12 as 2x2x3 (element (d, h, w) = 6d + 3h + w + 1): the windows
  // at w = 0 and 1 end at (1, 1, 1) = 11 and (1, 1, 2) = 12.
  OneOp mp("MaxPool");
  std::vector<float> x(12);
  for (int k = 0; k < 12; ++k) x[std::size_t(k)] = float(k + 1);
  mp.in("x", {1, 1, 2, 2, 3}, x).attr("kernel_shape", V{2, 2, 2});
  expect_floats(mp.y(), {1, 1, 1, 1, 2}, {11, 12});
  // AveragePool kernel 2 along depth, depth pads 1 on X depth [2, 4]: windows {pad, 2},
  // {2, 4}, {4, pad} -> 2, 3, 4 without the pad in the count, 1, 3, 2 with it.
  for (int include : {0, 1}) {
    OneOp ap("AveragePool");
    ap.in("x", {1, 1, 2, 1, 1}, {2, 4}).attr("kernel_shape", V{2, 1, 1}).attr("pads", V{1, 0, 0, 1, 0, 0});
    ap.attr("count_include_pad", std::int64_t{include});
    expect_floats(ap.y(), {1, 1, 3, 1, 1}, include ? std::vector<float>{1, 3, 2} : std::vector<float>{2, 3, 4});
  }
}

}  // namespace
}  // namespace npu::compiler
