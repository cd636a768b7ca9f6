// Reference interpreter, one op at a time: tiny tensors whose expected values are derived by
// hand in the comments (ONNX operator spec semantics), plus the errors it must raise.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>

#include "npu/hw_config/hw_config.hpp"
#include "reference_test_util.hpp"
#include "test_compile_graphs.hpp"

namespace npu::compiler {
namespace {

using testing::expect_floats;
using testing::OneOp;
using V = std::vector<std::int64_t>;

std::vector<float> iota(int n, float start = 0, float step = 1) {
  std::vector<float> v;
  for (int k = 0; k < n; ++k) v.push_back(start + step * float(k));
  return v;
}

// ---- Conv ------------------------------------------------------------------------------

TEST(ReferenceConv, ThreeByThreeWithZeroPaddingAndBias) {
  // X = [[1,2,3],[4,5,6],[7,8,9]], W = all ones, pads 1: each output is the sum of the 3x3
  // neighbourhood inside the input, e.g. corner 1+2+4+5 = 12, centre 1+...+9 = 45, plus 0.5.
  OneOp op("Conv");
  op.in("x", {1, 1, 3, 3}, iota(9, 1)).in("w", {1, 1, 3, 3}, std::vector<float>(9, 1.0f)).in("b", {1}, {0.5f});
  op.attr("pads", V{1, 1, 1, 1});
  expect_floats(op.y(), {1, 1, 3, 3}, {12.5f, 21.5f, 16.5f, 27.5f, 45.5f, 33.5f, 24.5f, 39.5f, 28.5f});
}

TEST(ReferenceConv, StrideDilationAndAsymmetricPads) {
  // X[h][w] = 5h + w (5x5); W = [[1,0],[0,-1]] dilated by 2 (effective 3x3: taps (0,0) +1 and
  // (2,2) -1); stride 2; pads end 2 on both axes: out = floor((5 + 2 - 3) / 2) + 1 = 3.
  // y[a][b] = X[2a][2b] - X[2a+2][2b+2] = -(5*2 + 2) = -12 while the second tap is inside; in
  // the last row/column it falls in the padding (0): y[2][2] = X[4][4] = 24, y[2][0] = X[4][0]
  // = 20, y[2][1] = X[4][2] = 22, y[0][2] = X[0][4] = 4, y[1][2] = X[2][4] = 14.
  OneOp op("Conv");
  op.in("x", {1, 1, 5, 5}, iota(25)).in("w", {1, 1, 2, 2}, {1, 0, 0, -1});
  op.attr("strides", V{2, 2}).attr("dilations", V{2, 2}).attr("pads", V{0, 0, 2, 2});
  expect_floats(op.y(), {1, 1, 3, 3}, {-12, -12, 4, -12, -12, 14, 20, 22, 24});
}

TEST(ReferenceConv, DepthwiseAndGroupedChannels) {
  // Depthwise (group 2): channel 0 [1,2,3,4] x 2, channel 1 [10,20,30,40] x -1.
  OneOp dw("Conv");
  dw.in("x", {1, 2, 2, 2}, {1, 2, 3, 4, 10, 20, 30, 40}).in("w", {2, 1, 1, 1}, {2, -1}).attr("group", std::int64_t{2});
  expect_floats(dw.y(), {1, 2, 2, 2}, {2, 4, 6, 8, -10, -20, -30, -40});
  // group 2 over 4 channels (one pixel): out0 = 1*x0 + 2*x1, out1 = 3*x2 + 4*x3 with x = [1,10,100,1000]
  // -> out0 = 21, out1 = 4300; a full conv would mix all four.
  OneOp g("Conv");
  g.in("x", {1, 4, 1, 1}, {1, 10, 100, 1000}).in("w", {2, 2, 1, 1}, {1, 2, 3, 4}).attr("group", std::int64_t{2});
  expect_floats(g.y(), {1, 2, 1, 1}, {21, 4300});
}

TEST(ReferenceConv, AutoPadSameUpper) {
  // ONNX SAME_UPPER, 4x4 ones, 3x3 ones, stride 2: out = ceil(4/2) = 2, total pad =
  // (2-1)*2 + 3 - 4 = 1, all at the end. Windows: rows/cols {0,1,2} and {2,3,pad}:
  // 3*3 = 9, 3*2 = 6, 2*3 = 6, 2*2 = 4.
  OneOp op("Conv");
  op.in("x", {1, 1, 4, 4}, std::vector<float>(16, 1)).in("w", {1, 1, 3, 3}, std::vector<float>(9, 1));
  op.attr("strides", V{2, 2}).attr("auto_pad", std::string("SAME_UPPER"));
  expect_floats(op.y(), {1, 1, 2, 2}, {9, 6, 6, 4});
}

TEST(ReferenceConv, OneDimensional) {
  // 1-D: x = [1,2,3,4], w = [1,-1] -> [1-2, 2-3, 3-4] = [-1,-1,-1].
  OneOp op("Conv");
  op.in("x", {1, 1, 4}, {1, 2, 3, 4}).in("w", {1, 1, 2}, {1, -1});
  expect_floats(op.y(), {1, 1, 3}, {-1, -1, -1});
}

TEST(ReferenceConv, ConvTransposeScattersEachInputOverTheKernel) {
  // X [[1,2],[3,4]], W 2x2 ones. Stride 2: each input pixel fills its own 2x2 block.
  OneOp s2("ConvTranspose");
  s2.in("x", {1, 1, 2, 2}, {1, 2, 3, 4}).in("w", {1, 1, 2, 2}, {1, 1, 1, 1}).attr("strides", V{2, 2});
  expect_floats(s2.y(), {1, 1, 4, 4}, {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
  // Stride 1: out 3x3 = (2-1)*1 + 2; blocks overlap: centre 1+2+3+4 = 10, edges pairwise sums
  // (1+2, 1+3, 2+4, 3+4), corners single values.
  OneOp s1("ConvTranspose");
  s1.in("x", {1, 1, 2, 2}, {1, 2, 3, 4}).in("w", {1, 1, 2, 2}, {1, 1, 1, 1});
  expect_floats(s1.y(), {1, 1, 3, 3}, {1, 3, 2, 4, 10, 6, 3, 7, 4});
}

TEST(ReferenceConv, RandomShapesMatchADoublePrecisionDirectLoopOnAnyThreadCount) {
  // Independent check: testing::ref_conv (a plain 7-deep loop in double, written for the
  // back-end tests) on random data; stride, pad and group vary. fp32 accumulation of <= 72
  // terms of |x w| <= 0.5: error << 1e-5.
  struct Case { int c, k, size, kernel, stride, pad, group; };
  for (const Case cs : {Case{3, 8, 9, 3, 1, 1, 1}, Case{8, 8, 8, 3, 2, 1, 8}, Case{6, 4, 7, 1, 1, 0, 2},
                        Case{4, 6, 10, 5, 2, 2, 2}, Case{2, 3, 6, 3, 3, 0, 1}}) {
    testing::GraphBuilder b;
    const std::string x = b.input("x", {1, cs.c, cs.size, cs.size});
    const std::string y = b.conv("conv", x, cs.k, cs.kernel, cs.stride, cs.pad, cs.group, true);
    b.output(y);
    RefTensor xin;
    xin.shape = {1, cs.c, cs.size, cs.size};
    xin.f = iota(cs.c * cs.size * cs.size, -1.0f, 2.0f / float(cs.c * cs.size * cs.size));
    const Tensor& w = b.g.tensor("conv.weight");
    const std::vector<double> want =
        testing::ref_conv(xin.f, xin.shape, w.float_data, w.shape, &b.g.tensor("conv.bias").float_data, cs.stride, cs.pad, cs.group);
    ReferenceOptions one, four;
    one.threads = 1;
    four.threads = 4;
    const RefTensor got1 = run_reference(b.g, {{"x", xin}}, one).at(y);
    const RefTensor got4 = run_reference(b.g, {{"x", xin}}, four).at(y);
    ASSERT_EQ(got1.f.size(), want.size());
    for (std::size_t e = 0; e < want.size(); ++e) EXPECT_NEAR(got1.f[e], want[e], 1e-5) << "element " << e;
    EXPECT_EQ(got1.f, got4.f) << "thread count changed the result";
  }
}

// ---- BatchNormalization, activations ---------------------------------------------------

TEST(ReferenceNorm, BatchNormalizationInference) {
  // eps 1, var 3 -> sqrt(3 + 1) = 2. Channel 0: scale 4, B 1, mean 1: (x - 1) / 2 * 4 + 1:
  // 1 -> 1, 3 -> 5. Channel 1: scale 1, B 0, mean 2: (x - 2) / 2: 0 -> -1, 4 -> 1.
  OneOp op("BatchNormalization");
  op.in("x", {1, 2, 1, 2}, {1, 3, 0, 4}).in("s", {2}, {4, 1}).in("b", {2}, {1, 0}).in("m", {2}, {1, 2}).in("v", {2}, {3, 3});
  op.attr("epsilon", 1.0f);
  expect_floats(op.y(), {1, 2, 1, 2}, {1, 5, -1, 1});
}

TEST(ReferenceNorm, LayerNormalizationLastAxis) {
  // Row [1,2,3,4]: mean 2.5, biased variance (2.25+0.25+0.25+2.25)/4 = 1.25; eps 0.75 ->
  // sqrt(2) ; scale 2, B 1: 1 + 2 (x - 2.5)/sqrt(2) = 1 + sqrt(2) * [-1.5,-0.5,0.5,1.5].
  OneOp op("LayerNormalization");
  op.in("x", {1, 4}, {1, 2, 3, 4}).in("g", {4}, {2, 2, 2, 2}).in("b", {4}, {1, 1, 1, 1}).attr("epsilon", 0.75f);
  const float r2 = std::sqrt(2.0f);
  expect_floats(op.y(), {1, 4}, {1 - 1.5f * r2, 1 - 0.5f * r2, 1 + 0.5f * r2, 1 + 1.5f * r2}, 1e-5f);
}

TEST(ReferenceActivation, ReluLeakyReluSigmoidHardSwishGelu) {
  expect_floats(OneOp("Relu").in("x", {3}, {-1, 0, 2}).y(), {3}, {0, 0, 2});
  expect_floats(OneOp("LeakyRelu").in("x", {2}, {-2, 3}).attr("alpha", 0.1f).y(), {2}, {-0.2f, 3});
  // sigmoid(ln 3) = 1 / (1 + 1/3) = 0.75; sigmoid(-ln 3) = 0.25.
  expect_floats(OneOp("Sigmoid").in("x", {3}, {0, std::log(3.0f), -std::log(3.0f)}).y(), {3}, {0.5f, 0.75f, 0.25f});
  // HardSwish x * clamp(x/6 + 1/2, 0, 1): -4 -> 0, -1 -> -1 * 1/3, 0 -> 0, 3 -> 3, 5 -> 5.
  expect_floats(OneOp("HardSwish").in("x", {5}, {-4, -1, 0, 3, 5}).y(), {5}, {0, -1.0f / 3, 0, 3, 5});
  // HardSigmoid alpha 0.2 beta 0.5: -5 -> 0, 0 -> 0.5, 1 -> 0.7, 5 -> 1.
  expect_floats(OneOp("HardSigmoid").in("x", {4}, {-5, 0, 1, 5}).y(), {4}, {0, 0.5f, 0.7f, 1});
  // GELU(1) = 0.5 (1 + erf(1/sqrt 2)) = 0.5 * 1.6826894921 (erf(1/sqrt 2) = P(|Z| < 1)).
  expect_floats(OneOp("Gelu").in("x", {3}, {0, 1, -10}).y(), {3}, {0, 0.84134474606f, 0});
}

TEST(ReferenceActivation, ClipAttributesInputsAndMinAboveMax) {
  expect_floats(OneOp("Clip").in("x", {3}, {-1, 3, 7}).attr("min", 0.0f).attr("max", 6.0f).y(), {3}, {0, 3, 6});
  // ONNX: "When min is greater than max, the clip operator sets all the input values to the
  // value of max." min 5, max 1 -> every value 1.
  expect_floats(OneOp("Clip").in("x", {3}, {-1, 3, 7}).attr("min", 5.0f).attr("max", 1.0f).y(), {3}, {1, 1, 1});
  // Opset-11 form: min absent (empty input name), max a tensor 2.
  OneOp op("Clip");
  op.in("x", {3}, {-1, 3, 7}).none().in("hi", {}, {2});
  expect_floats(op.y(), {3}, {-1, 2, 2});
}

// ---- Element-wise binary ops ------------------------------------------------------------

TEST(ReferenceElementwise, NumpyBroadcasting) {
  // [1,2,1,2] + [1,2,1,1]: channel 0 [1,2] + 10, channel 1 [3,4] + 20.
  expect_floats(OneOp("Add").in("a", {1, 2, 1, 2}, {1, 2, 3, 4}).in("b", {1, 2, 1, 1}, {10, 20}).y(), {1, 2, 1, 2},
                {11, 12, 23, 24});
  // [2,2] - [2] (last dim): [[1,2],[3,4]] - [1,2] = [[0,0],[2,2]].
  expect_floats(OneOp("Sub").in("a", {2, 2}, {1, 2, 3, 4}).in("b", {2}, {1, 2}).y(), {2, 2}, {0, 0, 2, 2});
  // [2,1] * [1,3] -> outer product [[1,2,3],[2,4,6]].
  expect_floats(OneOp("Mul").in("a", {2, 1}, {1, 2}).in("b", {1, 3}, {1, 2, 3}).y(), {2, 3}, {1, 2, 3, 2, 4, 6});
  expect_floats(OneOp("Div").in("a", {2}, {1, 6}).in("b", {}, {4}).y(), {2}, {0.25f, 1.5f});
  expect_floats(OneOp("Pow").in("a", {2}, {-3, 0.5f}).in("b", {}, {2}).y(), {2}, {9, 0.25f});
  // Pow with an integer exponent tensor (YOLO's Pow(x, 2) may carry one).
  expect_floats(OneOp("Pow").in("a", {2}, {2, 3}).ints("e", {}, {3}).y(), {2}, {8, 27});
  EXPECT_THROW(OneOp("Add").in("a", {2, 3}, iota(6)).in("b", {2}, {1, 2}).y(), ConfigError);  // 3 vs 2
}

// ---- Pooling -----------------------------------------------------------------------------

TEST(ReferencePool, MaxPoolPadsAreMinusInfinity) {
  // X = -(0..15) in 4x4; k3 s2 pad 1 (the ResNet stem): out floor((4+2-3)/2)+1 = 2. Window
  // maxima over in-input positions only: rows/cols {0,1} -> -0, rows {0,1} cols {1,2,3}
  // -> -1, rows {1,2,3} cols {0,1} -> -4, rows/cols {1,2,3} -> -5. Zero padding would give 0s.
  std::vector<float> x = iota(16, 0, -1);
  OneOp op("MaxPool");
  op.in("x", {1, 1, 4, 4}, x).attr("kernel_shape", V{3, 3}).attr("strides", V{2, 2}).attr("pads", V{1, 1, 1, 1});
  expect_floats(op.y(), {1, 1, 2, 2}, {0, -1, -4, -5});
}

TEST(ReferencePool, MaxPoolCeilMode1D) {
  // [1,5,2,4,3], k2 s2, ceil_mode: out = ceil((5-2)/2)+1 = 3; windows {0,1} {2,3} {4} -> 5,4,3.
  OneOp op("MaxPool");
  op.in("x", {1, 1, 5}, {1, 5, 2, 4, 3}).attr("kernel_shape", V{2}).attr("strides", V{2}).attr("ceil_mode", std::int64_t{1});
  expect_floats(op.y(), {1, 1, 3}, {5, 4, 3});
}

TEST(ReferencePool, AveragePoolCountIncludePad) {
  // 2x2 input [1,2,3,4], k3 s1 pad 1: every window holds all four values (sum 10) and five
  // padding positions. count_include_pad 0: 10/4 = 2.5; 1: 10/9.
  for (const auto& [include, want] : {std::pair{0, 2.5f}, std::pair{1, 10.0f / 9}}) {
    OneOp op("AveragePool");
    op.in("x", {1, 1, 2, 2}, {1, 2, 3, 4}).attr("kernel_shape", V{3, 3}).attr("pads", V{1, 1, 1, 1});
    op.attr("count_include_pad", std::int64_t{include});
    expect_floats(op.y(), {1, 1, 2, 2}, {want, want, want, want});
  }
}

TEST(ReferencePool, GlobalAveragePoolAndReduceMean) {
  // Channel 0 [1,2,3,4] -> 2.5; channel 1 [0,0,0,8] -> 2.
  expect_floats(OneOp("GlobalAveragePool").in("x", {1, 2, 2, 2}, {1, 2, 3, 4, 0, 0, 0, 8}).y(), {1, 2, 1, 1}, {2.5f, 2});
  expect_floats(OneOp("ReduceMean").in("x", {1, 2, 2, 2}, {1, 2, 3, 4, 0, 0, 0, 8}).attr("axes", V{2, 3}).attr("keepdims", std::int64_t{0}).y(),
                {1, 2}, {2.5f, 2});
}

// ---- Gemm / MatMul -------------------------------------------------------------------------

TEST(ReferenceMatmul, GemmTransBAlphaBetaBroadcastBias) {
  // A [[1,2,3],[4,5,6]], B^T rows [1,0,1] and [0,1,0]: A B^T = [[4,2],[10,5]]; alpha 2,
  // beta 3, C [0.5,-1] per column: [[8+1.5, 4-3],[20+1.5, 10-3]] = [[9.5,1],[21.5,7]].
  OneOp op("Gemm");
  op.in("a", {2, 3}, {1, 2, 3, 4, 5, 6}).in("b", {2, 3}, {1, 0, 1, 0, 1, 0}).in("c", {2}, {0.5f, -1});
  op.attr("transB", std::int64_t{1}).attr("alpha", 2.0f).attr("beta", 3.0f);
  expect_floats(op.y(), {2, 2}, {9.5f, 1, 21.5f, 7});
}

TEST(ReferenceMatmul, MatMulBroadcastBatchAndVectors) {
  // A [2,1,2,2]: A0 [[1,2],[3,4]], A1 [[0,1],[1,0]]; B [3,2,1]: B_j = [[j],[1]].
  // Batch dims [2,1] x [3] -> [2,3]. A0 B_j = [j+2, 3j+4]; A1 B_j = [1, j].
  OneOp op("MatMul");
  op.in("a", {2, 1, 2, 2}, {1, 2, 3, 4, 0, 1, 1, 0}).in("b", {3, 2, 1}, {0, 1, 1, 1, 2, 1});
  expect_floats(op.y(), {2, 3, 2, 1}, {2, 4, 3, 7, 4, 10, 1, 0, 1, 1, 1, 2});
  // [2] x [2,2]: [1,2] . [[1,2],[3,4]] = [7,10] (the vector's added dim removed).
  expect_floats(OneOp("MatMul").in("a", {2}, {1, 2}).in("b", {2, 2}, {1, 2, 3, 4}).y(), {2}, {7, 10});
}

// ---- Layout ops -----------------------------------------------------------------------------

TEST(ReferenceLayout, ConcatSplitTranspose) {
  // Concat axis 1 of [1,1,2] [7,8] and [1,2,2] [1,2,3,4] -> [7,8,1,2,3,4].
  expect_floats(OneOp("Concat").in("a", {1, 1, 2}, {7, 8}).in("b", {1, 2, 2}, {1, 2, 3, 4}).attr("axis", std::int64_t{1}).y(),
                {1, 3, 2}, {7, 8, 1, 2, 3, 4});
  // Split [1,3,2] = 0..5 along axis 1 into [1,2]: rows {0} and {1,2}.
  OneOp sp("Split", 2);
  sp.in("x", {1, 3, 2}, iota(6)).attr("axis", std::int64_t{1}).attr("split", V{1, 2});
  const RefTensorMap s = sp.run();
  expect_floats(s.at("y0"), {1, 1, 2}, {0, 1});
  expect_floats(s.at("y1"), {1, 2, 2}, {2, 3, 4, 5});
  // Transpose [1,2,3] [[0,1,2],[3,4,5]] with perm [0,2,1] -> [[0,3],[1,4],[2,5]].
  expect_floats(OneOp("Transpose").in("x", {1, 2, 3}, iota(6)).attr("perm", V{0, 2, 1}).y(), {1, 3, 2}, {0, 3, 1, 4, 2, 5});
}

TEST(ReferenceLayout, ReshapeFlattenSqueezeUnsqueeze) {
  // Reshape [1,2,3] to [0,-1]: 0 copies dim 0 (1), -1 = 6 / 1.
  expect_floats(OneOp("Reshape").in("x", {1, 2, 3}, iota(6)).ints("s", {2}, {0, -1}).y(), {1, 6}, iota(6));
  expect_floats(OneOp("Flatten").in("x", {2, 3, 1}, iota(6)).attr("axis", std::int64_t{2}).y(), {6, 1}, iota(6));
  expect_floats(OneOp("Squeeze").in("x", {1, 3, 1}, iota(3)).ints("a", {1}, {-1}).y(), {1, 3}, iota(3));
  expect_floats(OneOp("Unsqueeze").in("x", {3}, iota(3)).ints("a", {2}, {0, 2}).y(), {1, 3, 1}, iota(3));
}

TEST(ReferenceLayout, SliceNegativeStepAndClamping) {
  // [0..5] on axis 1, start -1 (= 5), end -10 (= -4, clamped to -1 for a negative step),
  // step -2: indices 5, 3, 1.
  OneOp op("Slice");
  op.in("x", {1, 6}, iota(6)).ints("st", {1}, {-1}).ints("en", {1}, {-10}).ints("ax", {1}, {1}).ints("sp", {1}, {-2});
  expect_floats(op.y(), {1, 3}, {5, 3, 1});
  // start 1, end INT64_MAX (clamped to 6), step 2 on axis -1: indices 1, 3, 5.
  OneOp op2("Slice");
  op2.in("x", {1, 6}, iota(6)).ints("st", {1}, {1}).ints("en", {1}, {INT64_MAX}).ints("ax", {1}, {-1}).ints("sp", {1}, {2});
  expect_floats(op2.y(), {1, 3}, {1, 3, 5});
}

TEST(ReferenceLayout, PadModesAndGather) {
  // [1,2,3] padded 2 before, 1 after on the last axis: reflect mirrors without repeating the
  // edge: [3,2 | 1,2,3 | 2]; edge repeats it: [1,1 | 1,2,3 | 3]; constant 9: [9,9 | 1,2,3 | 9].
  const std::vector<std::pair<std::string, std::vector<float>>> cases = {
      {"reflect", {3, 2, 1, 2, 3, 2}}, {"edge", {1, 1, 1, 2, 3, 3}}, {"constant", {9, 9, 1, 2, 3, 9}}};
  for (const auto& [mode, want] : cases) {
    OneOp op("Pad");
    op.in("x", {1, 3}, {1, 2, 3}).ints("p", {4}, {0, 2, 0, 1}).in("v", {}, {9}).attr("mode", mode);
    expect_floats(op.y(), {1, 6}, want);
  }
  // Gather rows 2 and -3 (= 0) of [[0,1],[2,3],[4,5]].
  expect_floats(OneOp("Gather").in("x", {3, 2}, iota(6)).ints("i", {2}, {2, -3}).y(), {2, 2}, {4, 5, 0, 1});
}

// ---- Resize, Softmax -----------------------------------------------------------------------

TEST(ReferenceResize, NearestAsymmetricFloorUpsample) {
  // YOLOv5's Upsample: scale 2, asymmetric x/2, floor: output pixel (i,j) <- (i/2, j/2).
  OneOp op("Resize");
  op.in("x", {1, 1, 2, 2}, {1, 2, 3, 4}).attr("scales", std::vector<float>{1, 1, 2, 2});
  op.attr("mode", std::string("nearest")).attr("coordinate_transformation_mode", std::string("asymmetric"));
  op.attr("nearest_mode", std::string("floor"));
  expect_floats(op.y(), {1, 1, 4, 4}, {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
}

TEST(ReferenceResize, LinearCoordinateModes) {
  // align_corners, [0,3] to 4: x_in = o * (2-1)/(4-1) = 0, 1/3, 2/3, 1 -> 0, 1, 2, 3.
  OneOp a("Resize");
  a.in("x", {1, 1, 1, 2}, {0, 3}).attr("sizes", V{1, 1, 1, 4}).attr("mode", std::string("linear"));
  a.attr("coordinate_transformation_mode", std::string("align_corners"));
  expect_floats(a.y(), {1, 1, 1, 4}, {0, 1, 2, 3}, 1e-5f);
  // half_pixel, [0,4] scale 2: x_in = (o + 0.5)/2 - 0.5 = -0.25, 0.25, 0.75, 1.25, clamped
  // to [0, 1]: 0, 0.25, 0.75, 1 -> 0, 1, 3, 4.
  OneOp h("Resize");
  h.in("x", {1, 1, 1, 2}, {0, 4}).attr("scales", std::vector<float>{1, 1, 1, 2}).attr("mode", std::string("linear"));
  h.attr("coordinate_transformation_mode", std::string("half_pixel"));
  expect_floats(h.y(), {1, 1, 1, 4}, {0, 1, 3, 4}, 1e-5f);
}

TEST(ReferenceSoftmax, LastAxis) {
  // exp([0, ln 2, ln 5]) = [1, 2, 5], sum 8 -> [1/8, 2/8, 5/8].
  expect_floats(OneOp("Softmax").in("x", {1, 3}, {0, std::log(2.0f), std::log(5.0f)}).attr("axis", std::int64_t{-1}).y(), {1, 3},
                {0.125f, 0.25f, 0.625f});
}

// ---- Quantised models: Tensor::quant applied as QuantizeLinear + DequantizeLinear ----------

TEST(ReferenceQuant, TensorsWithQuantParamsAreRoundedToTheirGrid) {
  // Relu output with int8 scale 0.5, zero point 0: x / 0.5 = [0.52, 1.5, 200, 0] -> round half
  // to even [1, 2, 127 (saturated), 0] -> x' = [0.5, 1.0, 63.5, 0].
  OneOp op("Relu");
  op.in("x", {4}, {0.26f, 0.75f, 100, -1.3f});
  Tensor y;
  y.name = "y0";
  y.shape = {4};
  y.quant = QuantParams{{0.5f}, {0}, 1, ElemType::Int8};
  op.g.tensors["y0"] = y;
  expect_floats(op.y(), {4}, {0.5f, 1.0f, 63.5f, 0});
  // Per channel along axis 1, uint8 with zero point 128 on the graph input: channel 0 scale
  // 1: 3.4 -> 3 + 128 = 131 -> 3; -200 -> -72 saturates at 0 -> -128. Channel 1 scale 0.25:
  // 0.3 / 0.25 = 1.2 -> 1 -> 0.25; 0.375 / 0.25 = 1.5 -> 2 -> 0.5.
  OneOp pc("Identity");
  pc.in("x", {1, 2, 2}, {3.4f, -200, 0.3f, 0.375f});
  pc.g.tensors["x"].quant = QuantParams{{1.0f, 0.25f}, {128, 128}, 1, ElemType::Uint8};
  expect_floats(pc.y(), {1, 2, 2}, {3, -128, 0.25f, 0.5f});
  ReferenceOptions off;
  off.apply_quant = false;
  expect_floats(pc.run_reference_with(off).at("y0"), {1, 2, 2}, {3.4f, -200, 0.3f, 0.375f});
}

// ---- Graph-level behaviour and errors -----------------------------------------------------

/// Conv -> Relu with a named intermediate, for keep/free tests.
testing::GraphBuilder conv_relu_graph() {
  testing::GraphBuilder b("conv_relu");
  const std::string x = b.input("x", {1, 2, 4, 4});
  const std::string c = b.conv("conv", x, 3, 3, 1, 1);
  b.output(b.unary("relu", "Relu", c));
  return b;
}

RefTensor ramp(std::vector<std::int64_t> shape) {
  RefTensor t = RefTensor::zeros(shape);
  for (std::size_t k = 0; k < t.f.size(); ++k) t.f[k] = float(k % 7) - 3.0f;
  return t;
}

TEST(ReferenceGraph, KeepsNamedIntermediatesAndOutputsIsReluOfThem) {
  auto b = conv_relu_graph();
  ReferenceOptions o;
  o.keep = {"conv.out"};
  const RefTensorMap r = run_reference(b.g, {{"x", ramp({1, 2, 4, 4})}}, o);
  ASSERT_EQ(r.size(), 2u);
  const RefTensor& c = r.at("conv.out");
  const RefTensor& y = r.at("relu.out");
  ASSERT_EQ(c.shape, (V{1, 3, 4, 4}));
  bool some_negative = false;
  for (std::size_t k = 0; k < c.f.size(); ++k) {
    EXPECT_EQ(y.f[k], std::max(c.f[k], 0.0f));
    some_negative = some_negative || c.f[k] < 0;
  }
  EXPECT_TRUE(some_negative);  // the Relu did something
}

TEST(ReferenceGraph, KeepAllReturnsEveryComputedTensor) {
  auto b = conv_relu_graph();
  ReferenceOptions o;
  o.keep_all = true;
  const RefTensorMap r = run_reference(b.g, {{"x", ramp({1, 2, 4, 4})}}, o);
  EXPECT_EQ(r.size(), 2u);  // conv.out and relu.out; inputs and weights are not computed
  EXPECT_TRUE(r.count("conv.out"));
  EXPECT_TRUE(r.count("relu.out"));
}

TEST(ReferenceGraph, UnsupportedOpIsAnErrorNamingNodeAndOp) {
  OneOp op("StringNormalizer");
  op.in("x", {1}, {0});
  try {
    op.run();
    FAIL() << "expected an error";
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("node #0 'StringNormalizer_0' (StringNormalizer)"), std::string::npos) << m;
    EXPECT_NE(m.find("does not implement op 'StringNormalizer'"), std::string::npos) << m;
  }
}

TEST(ReferenceGraph, UnimplementedAttributeValuesAreRefused) {
  OneOp cubic("Resize");
  cubic.in("x", {1, 1, 2, 2}, {1, 2, 3, 4}).attr("scales", std::vector<float>{1, 1, 2, 2}).attr("mode", std::string("cubic"));
  EXPECT_THROW(cubic.run(), ConfigError);
  OneOp train("BatchNormalization");
  train.in("x", {1, 1, 1, 1}, {1}).in("s", {1}, {1}).in("b", {1}, {0}).in("m", {1}, {0}).in("v", {1}, {1});
  train.attr("training_mode", std::int64_t{1});
  EXPECT_THROW(train.run(), ConfigError);
  OneOp group("Conv");
  group.in("x", {1, 3, 2, 2}, iota(12)).in("w", {2, 1, 1, 1}, {1, 1}).attr("group", std::int64_t{2});  // 3 % 2 != 0
  EXPECT_THROW(group.run(), ConfigError);
}

TEST(ReferenceGraph, UnknownConvAttributeIsRefusedNotIgnored) {
  // An exporter's fused `activation` on a Conv would change the result if honoured; a plain
  // Conv computed in its place would be a silent wrong number.
  OneOp op("Conv");
  op.in("x", {1, 1, 1, 1}, {-1}).in("w", {1, 1, 1, 1}, {1}).attr("activation", std::string("Relu"));
  try {
    op.run();
    FAIL() << "expected an error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("attribute 'activation' is not an ONNX Conv attribute"), std::string::npos) << e.what();
  }
}

TEST(ReferenceGraph, BadInputsAreErrorsNamingTheInput) {
  auto b = conv_relu_graph();
  auto message = [&](const RefTensorMap& in, const ReferenceOptions& o = {}) {
    try {
      run_reference(b.g, in, o);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({}).find("graph input 'x' (1x2x4x4) has no tensor"), std::string::npos) << message({});
  const std::string wrong = message({{"x", ramp({1, 2, 4, 5})}});
  EXPECT_NE(wrong.find("input 'x' has shape 1x2x4x5, the model expects 1x2x4x4"), std::string::npos) << wrong;
  const std::string extra = message({{"x", ramp({1, 2, 4, 4})}, {"z", ramp({1})}});
  EXPECT_NE(extra.find("input 'z' given to the reference interpreter is not a graph input"), std::string::npos) << extra;
  ReferenceOptions o;
  o.keep = {"nope"};
  EXPECT_NE(message({{"x", ramp({1, 2, 4, 4})}}, o).find("'nope' asked to be kept is no tensor"), std::string::npos);
}

TEST(ReferenceGraph, ConstantsWithoutDataAreRefusedNotZero) {
  // The built-in zoo models (and GraphBuilder with_data = false) carry weight shapes only.
  testing::GraphBuilder b("no_data");
  b.with_data = false;
  const std::string x = b.input("x", {1, 2, 4, 4});
  b.output(b.conv("conv", x, 3, 3, 1, 1));
  try {
    run_reference(b.g, {{"x", ramp({1, 2, 4, 4})}});
    FAIL() << "expected an error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("constant tensor 'conv.weight' (3x2x3x3) has 0 values of data"), std::string::npos)
        << e.what();
  }
}

TEST(ReferenceGraph, ComputedShapeDisagreeingWithInferenceIsReported) {
  auto b = conv_relu_graph();
  b.g.tensor("conv.out").shape = {1, 3, 5, 5};  // what a wrong shape rule would leave
  try {
    run_reference(b.g, {{"x", ramp({1, 2, 4, 4})}});
    FAIL() << "expected an error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("computed with shape 1x3x4x4 but shape inference gave 1x3x5x5"), std::string::npos)
        << e.what();
  }
}

TEST(ReferenceGraph, CompareTensorsReportsAbsoluteAndRelativeError) {
  // |[1, 2.5] - [1, 2]| max 0.5; max |ref| 2 -> relative 0.25.
  RefTensor a, b;
  a.shape = b.shape = {2};
  a.f = {1, 2.5f};
  b.f = {1, 2};
  const TensorDiff d = compare_tensors(a, b);
  EXPECT_DOUBLE_EQ(d.max_abs, 0.5);
  EXPECT_DOUBLE_EQ(d.max_ref, 2.0);
  EXPECT_DOUBLE_EQ(d.max_rel, 0.25);
  a.f[0] = NAN;  // a NaN is never hidden
  EXPECT_TRUE(std::isnan(compare_tensors(a, b).max_abs));
  a.shape = {1, 2};
  EXPECT_THROW(compare_tensors(a, b), ConfigError);
}

TEST(ReferenceReduce, IntegerShapesReduceExactlyInInt64) {
  // Detection exports multiply a dynamic shape's dims (ReduceProd of an int64 Shape slice).
  // x = [[2, 3, 4], [5, 6, 7]]: products along axis 1 = 24, 210; the sum of all = 27; the max
  // along axis 0 = 5, 6, 7 (keepdims 1: shape [1, 3]). 3^39 = 4,052,555,153,018,976,267 > 2^53
  // stays exact in int64 (a float product would round it).
  OneOp prod("ReduceProd");
  prod.ints("x", {2, 3}, {2, 3, 4, 5, 6, 7});
  prod.attr("axes", V{1}).attr("keepdims", std::int64_t{0});
  const RefTensor p = prod.y();
  EXPECT_FALSE(p.is_float());
  EXPECT_EQ(p.shape, (V{2}));
  EXPECT_EQ(p.i, (V{24, 210}));
  OneOp sum("ReduceSum");
  sum.ints("x", {2, 3}, {2, 3, 4, 5, 6, 7});
  EXPECT_EQ(sum.y().i, (V{27}));
  OneOp max("ReduceMax");
  max.ints("x", {2, 3}, {2, 3, 4, 5, 6, 7});
  max.attr("axes", V{0});
  EXPECT_EQ(max.y().shape, (V{1, 3}));
  EXPECT_EQ(max.y().i, (V{5, 6, 7}));
  OneOp big("ReduceProd");
  big.ints("x", {39}, V(39, 3));
  EXPECT_EQ(big.y().i, (V{4052555153018976267}));
  // ReduceMean of integers is not defined exactly here: refused naming what does take them.
  OneOp mean("ReduceMean");
  mean.ints("x", {2}, {1, 2});
  try {
    mean.run();
    FAIL() << "expected an error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("ReduceSum, ReduceMax, ReduceMin and ReduceProd take integers"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace npu::compiler
