// Reference interpreter: NonMaxSuppression and RoiAlign (roi_ops.cpp), on tiny tensors whose
// expected values are derived by hand in the comments from the ONNX operator spec and its
// node-test examples (onnx/backend/test/case/node/nonmaxsuppression.py). The same ops against
// ONNX Runtime: test_reference_ort.cpp (OrtDetectionOps.NonMaxSuppression*, RoiAlign*).
#include <gtest/gtest.h>

#include "npu/hw_config/hw_config.hpp"
#include "reference_test_util.hpp"

namespace npu::compiler {
namespace {

using testing::expect_floats;
using testing::OneOp;
using V = std::vector<std::int64_t>;

// ONNX's example boxes, [y1, x1, y2, x2]: unit squares at x = 0, 0.1, -0.1, 10, 10.1, 100.
const std::vector<float> kBoxes = {0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, -0.1f, 1, 0.9f,
                                   0, 10, 1, 11, 0, 10.1f, 1, 11.1f, 0, 100, 1, 101};
const std::vector<float> kScores = {0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f};

OneOp nms(const std::vector<float>& boxes, std::int64_t max_out, float iou, float score) {
  OneOp op("NonMaxSuppression");
  op.in("boxes", {1, 6, 4}, boxes).in("scores", {1, 1, 6}, kScores).ints("max", {1}, {max_out});
  op.in("iou", {1}, {iou}).in("score", {1}, {score});
  return op;
}

std::string error_of(OneOp& op) {
  try {
    op.run();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ReferenceNonMaxSuppression, SuppressByIouKeepsTheBestOfEachOverlappingGroup) {
  // By score: box 3 (0.95), 0 (0.9), 1 (0.75), 2 (0.6), 4 (0.5), 5 (0.3). Box 1 overlaps box 0
  // by 0.9 x 1 over a union of 1.1: IoU 0.818 > 0.5, suppressed; box 2 likewise; box 4 overlaps
  // box 3 the same way; box 5 overlaps nothing. Three kept: 3, 0, 5.
  OneOp op = nms(kBoxes, 3, 0.5f, 0.0f);
  const RefTensor y = op.y();
  EXPECT_EQ(y.shape, (V{3, 3}));
  EXPECT_EQ(y.i, (V{0, 0, 3, 0, 0, 0, 0, 0, 5}));
  // max_output_boxes_per_class 2 stops after 3 and 0; a score threshold of 0.4 drops box 5
  // (0.3 is not above it); an IoU threshold of 0.9 keeps 1 and 4 as well (0.818 is not above).
  OneOp two = nms(kBoxes, 2, 0.5f, 0.0f);
  EXPECT_EQ(two.y().i, (V{0, 0, 3, 0, 0, 0}));
  OneOp thr = nms(kBoxes, 3, 0.5f, 0.4f);
  EXPECT_EQ(thr.y().i, (V{0, 0, 3, 0, 0, 0}));
  OneOp loose = nms(kBoxes, 10, 0.9f, 0.0f);
  EXPECT_EQ(loose.y().i, (V{0, 0, 3, 0, 0, 0, 0, 0, 1, 0, 0, 2, 0, 0, 4, 0, 0, 5}));
}

TEST(ReferenceNonMaxSuppression, CenterPointBoxesAndFlippedCornersGiveTheSameBoxes) {
  // [xc, yc, w, h] of the same unit squares (x centre 0.5 + offset, y centre 0.5).
  OneOp centre = nms({0.5f, 0.5f, 1, 1, 0.6f, 0.5f, 1, 1, 0.4f, 0.5f, 1, 1, 10.5f, 0.5f, 1, 1, 10.6f, 0.5f, 1, 1,
                      100.5f, 0.5f, 1, 1},
                     3, 0.5f, 0.0f);
  centre.attr("center_point_box", std::int64_t{1});
  EXPECT_EQ(centre.y().i, (V{0, 0, 3, 0, 0, 0, 0, 0, 5}));
  // Corners given as (y2, x2, y1, x1): either diagonal pair names the same box.
  std::vector<float> flipped = kBoxes;
  for (std::size_t b = 0; b < 6; ++b) std::swap_ranges(flipped.begin() + long(4 * b), flipped.begin() + long(4 * b + 2),
                                                       flipped.begin() + long(4 * b + 2));
  OneOp flip = nms(flipped, 3, 0.5f, 0.0f);
  EXPECT_EQ(flip.y().i, (V{0, 0, 3, 0, 0, 0, 0, 0, 5}));
}

TEST(ReferenceNonMaxSuppression, EqualScoresTakeTheLowerBoxFirstAndZeroKeepsNone) {
  // Two identical boxes of equal score: the lower index (0) is kept, 1 suppressed (IoU 1).
  OneOp tie("NonMaxSuppression");
  tie.in("boxes", {1, 2, 4}, {0, 0, 1, 1, 0, 0, 1, 1}).in("scores", {1, 1, 2}, {0.5f, 0.5f});
  tie.ints("max", {1}, {5}).in("iou", {1}, {0.5f});
  EXPECT_EQ(tie.y().i, (V{0, 0, 0}));
  // max_output_boxes_per_class absent (ONNX default 0): nothing is selected, [0, 3].
  OneOp none("NonMaxSuppression");
  none.in("boxes", {1, 2, 4}, {0, 0, 1, 1, 0, 0, 1, 1}).in("scores", {1, 1, 2}, {0.5f, 0.5f});
  EXPECT_EQ(none.y().shape, (V{0, 3}));
}

TEST(ReferenceNonMaxSuppression, BadShapesAndThresholdAreErrors) {
  OneOp bad("NonMaxSuppression");
  bad.in("boxes", {1, 6, 4}, kBoxes).in("scores", {1, 1, 5}, {1, 2, 3, 4, 5}).ints("max", {1}, {3});
  EXPECT_NE(error_of(bad).find("scores must be [num_batches, num_classes, spatial_dimension] = [1, C, 6]"),
            std::string::npos);
  OneOp iou = nms(kBoxes, 3, 1.5f, 0.0f);
  EXPECT_NE(error_of(iou).find("iou_threshold must be in [0, 1]"), std::string::npos);
}

// x [1, 1, 4, 4] = 4 h + w: bilinear samples inside the plane equal 4 y + x exactly.
OneOp roi_op(std::vector<float> roi, const std::string& mode, const std::string& ctm, std::int64_t ratio) {
  OneOp op("RoiAlign");
  std::vector<float> x;
  for (int i = 0; i < 16; ++i) x.push_back(float(i));
  op.in("x", {1, 1, 4, 4}, x).in("rois", {1, 4}, std::move(roi)).ints("idx", {1}, {0});
  op.attr("mode", mode).attr("coordinate_transformation_mode", ctm).attr("sampling_ratio", ratio);
  return op;
}

TEST(ReferenceRoiAlign, AverageOfBilinearSamplesUnderBothCoordinateModes) {
  // RoI (x1, y1, x2, y2) = (0, 0, 2, 2), one 1 x 1 bin, 2 x 2 samples.
  // half_pixel: start -0.5, size 2, samples at -0.5 + (i + 0.5) = 0 and 1 on each axis:
  //   4y + x at (0,0), (0,1), (1,0), (1,1) = 0, 1, 4, 5 -> mean 2.5.
  // output_half_pixel: start 0, samples at 0.5 and 1.5: 2.5, 3.5, 6.5, 7.5 -> mean 5.
  OneOp half = roi_op({0, 0, 2, 2}, "avg", "half_pixel", 2);
  expect_floats(half.y(), {1, 1, 1, 1}, {2.5f});
  OneOp out = roi_op({0, 0, 2, 2}, "avg", "output_half_pixel", 2);
  expect_floats(out.y(), {1, 1, 1, 1}, {5.0f});
}

TEST(ReferenceRoiAlign, MaxModeTakesTheLargestWeightedCornerAsOnnxRuntime) {
  // output_half_pixel, samples at (0.5, 0.5), (0.5, 1.5), (1.5, 0.5), (1.5, 1.5), each with four
  // corners of weight 0.25: max(0.25 corner) = 0.25 x 5, 6, 9, 10 = 1.25, 1.5, 2.25, 2.5 -> 2.5
  // (ONNX Runtime's max; torchvision's max of the interpolated values would be 7.5).
  OneOp op = roi_op({0, 0, 2, 2}, "max", "output_half_pixel", 2);
  expect_floats(op.y(), {1, 1, 1, 1}, {2.5f});
}

TEST(ReferenceRoiAlign, FarBorderClampsAndAdaptiveGridAndBins) {
  // RoI (2, 2, 4, 4), output_half_pixel, ratio 1: one sample at 3 on each axis; y_low = 3 =
  // H - 1 clamps both taps to row 3 (and column 3): 4 x 3 + 3 = 15.
  OneOp edge = roi_op({2, 2, 4, 4}, "avg", "output_half_pixel", 1);
  expect_floats(edge.y(), {1, 1, 1, 1}, {15.0f});
  // 2 x 2 bins over (0, 0, 2, 2), output_half_pixel, adaptive grid ceil(2 / 2) = 1: bin
  // centres 0.5 and 1.5: 4y + x = 2.5, 3.5, 6.5, 7.5 in row-major bin order.
  OneOp bins = roi_op({0, 0, 2, 2}, "avg", "output_half_pixel", 0);
  bins.attr("output_height", std::int64_t{2}).attr("output_width", std::int64_t{2});
  expect_floats(bins.y(), {1, 1, 2, 2}, {2.5f, 3.5f, 6.5f, 7.5f});
  // spatial_scale 0.5 maps the RoI (0, 0, 4, 4) onto (0, 0, 2, 2): mean 5 as above.
  OneOp scaled = roi_op({0, 0, 4, 4}, "avg", "output_half_pixel", 2);
  scaled.attr("spatial_scale", 0.5f);
  expect_floats(scaled.y(), {1, 1, 1, 1}, {5.0f});
}

TEST(ReferenceRoiAlign, BadBatchIndexAndModeAreErrors) {
  OneOp op = roi_op({0, 0, 2, 2}, "avg", "half_pixel", 2);
  op.inputs["idx"].i = {1};
  EXPECT_NE(error_of(op).find("batch_indices[0] = 1 is outside [0, 1)"), std::string::npos) << error_of(op);
  OneOp mode = roi_op({0, 0, 2, 2}, "median", "half_pixel", 2);
  EXPECT_NE(error_of(mode).find("mode 'median' is not an ONNX RoiAlign mode"), std::string::npos);
}

}  // namespace
}  // namespace npu::compiler
