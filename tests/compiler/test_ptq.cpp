// Post-training quantisation (compiler/quantize/): SQNR, per-channel weight scales, min/max
// and percentile activation ranges, calibration folders and their errors, and the order of
// BatchNormalization folding and quantisation. Every expected value is derived by hand in
// the comment beside it.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "npu/compiler/quantize/calibration.hpp"
#include "npu/compiler/quantize/error_metrics.hpp"
#include "npu/compiler/quantize/ptq.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "npu/compiler/frontend/tensor_io.hpp"
#include "test_compile_graphs.hpp"

namespace npu::compiler {
namespace {

using testing::GraphBuilder;
namespace fs = std::filesystem;

std::string fresh_dir(const std::string& name) {
  const fs::path p = fs::temp_directory_path() / ("npu_ptq_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(p);
  fs::create_directories(p);
  return p.string();
}

RefTensor tensor(std::vector<std::int64_t> shape, std::vector<float> v) {
  RefTensor t;
  t.shape = std::move(shape);
  t.f = std::move(v);
  return t;
}

TEST(Sqnr, HandComputedValues) {
  // signal 1 + 4 + 9 + 16 = 30, noise (4 - 5)^2 = 1: 10 log10(30) = 14.77121255 dB.
  EXPECT_NEAR(sqnr_db({1, 2, 3, 4}, {1, 2, 3, 5}), 14.7712125472, 1e-9);
  // signal 9 + 16 = 25, noise 0.5^2 + 0.5^2 = 0.5: 10 log10(50) = 16.98970004 dB.
  EXPECT_NEAR(sqnr_db({3, -4}, {3.5f, -4.5f}), 16.9897000434, 1e-9);
  // signal 100, noise 100 (test all zero): 0 dB.
  EXPECT_NEAR(sqnr_db({10}, {0}), 0.0, 1e-12);
  EXPECT_TRUE(std::isinf(sqnr_db({1, 2}, {1, 2})) && sqnr_db({1, 2}, {1, 2}) > 0);
  EXPECT_TRUE(std::isinf(sqnr_db({0, 0}, {0, 1})) && sqnr_db({0, 0}, {0, 1}) < 0);
  EXPECT_THROW(sqnr_db({1}, {1, 2}), std::invalid_argument);
}

TEST(Top1, OnlyForClassifierShapedOutputs) {
  std::vector<float> a(10, 0.0f), b(10, 0.0f);
  a[3] = 1;
  b[3] = 0.5f;
  EXPECT_EQ(top1_agrees({1, 10}, a, b), std::optional<bool>(true));
  b[7] = 0.9f;  // argmax moves to 7
  EXPECT_EQ(top1_agrees({1, 10}, a, b), std::optional<bool>(false));
  EXPECT_FALSE(top1_agrees({2, 5}, a, b).has_value());     // a batch of 2: not one score vector
  EXPECT_FALSE(top1_agrees({1, 1, 3, 3}, std::vector<float>(9), std::vector<float>(9)).has_value());  // 3 classes < 10
}

TEST(Ptq, WeightScalesAreMaxAbsOver127PerOutputChannel) {
  GraphBuilder b;
  const std::string y = b.conv("conv", b.input("x", {1, 1, 2, 2}), 2, 2);
  b.output(y);
  // Channel 0: max |w| = 1.27 -> s0 = 0.01; q = 50, -127, 30, round(0.4) = 0.
  // Channel 1: max |w| = 2.54 -> s1 = 0.02; q = 127, round(-0.65) = -1, round(1.55) = 2, -50.
  b.g.tensor("conv.weight").float_data = {0.5f, -1.27f, 0.3f, 0.004f, 2.54f, -0.013f, 0.031f, -1.0f};
  const PtqResult r = quantize_graph(b.g, builtin_strategy("none"), {{{"x", tensor({1, 1, 2, 2}, {1, 2, 3, 4})}}});
  const Tensor& w = r.graph.tensor("conv.weight");
  ASSERT_TRUE(w.quant);
  EXPECT_EQ(w.quant->type, ElemType::Int8);
  EXPECT_EQ(w.quant->axis, 0);
  ASSERT_EQ(w.quant->scale.size(), 2u);
  EXPECT_FLOAT_EQ(w.quant->scale[0], 0.01f);
  EXPECT_FLOAT_EQ(w.quant->scale[1], 0.02f);
  EXPECT_EQ(w.quant->zero_point, (std::vector<std::int64_t>{0, 0}));
  const std::vector<float> want{0.5f, -1.27f, 0.3f, 0.0f, 2.54f, -0.02f, 0.04f, -1.0f};
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(w.float_data[i], want[i], 1e-6) << i;
  EXPECT_EQ(r.weights, 1);
}

/// x [1,1,2,2] -> Conv 1x1 (w = {1, -0.5}, bias {0.1, -0.2}) -> Relu.
GraphBuilder conv_relu() {
  GraphBuilder b;
  const std::string c = b.conv("conv", b.input("x", {1, 1, 2, 2}), 2, 1, 1, 0, 1, true);
  b.output(b.unary("relu", "Relu", c));
  b.g.tensor("conv.weight").float_data = {1.0f, -0.5f};
  b.g.tensor("conv.bias").float_data = {0.1f, -0.2f};
  return b;
}

std::vector<CalibSample> two_samples() {
  return {{{"x", tensor({1, 1, 2, 2}, {-1, 0.5f, 2, 3})}}, {{"x", tensor({1, 1, 2, 2}, {0, 1, -2, 1.5f})}}};
}

TEST(Ptq, MinMaxActivationScaleAndZeroPointByHand) {
  const GraphBuilder b = conv_relu();
  const PtqResult r = quantize_graph(b.g, builtin_strategy("none"), two_samples());
  // x over both samples: [-2, 3] -> s = 5/255, zp = round(-128 - (-2)/(5/255)) = round(-128 + 102) = -26.
  const auto& qx = *r.graph.tensor("x").quant;
  EXPECT_FLOAT_EQ(qx.scale[0], 5.0f / 255.0f);
  EXPECT_EQ(qx.zero_point[0], -26);
  EXPECT_EQ(qx.type, ElemType::Int8);
  // conv out: channel 0 = x + 0.1 in [-1.9, 3.1], channel 1 = -0.5 x - 0.2 in [-1.7, 0.8]: per tensor
  // [-1.9, 3.1] -> s = 5/255, zp = round(-128 + 1.9 x 51) = round(-31.1) = -31.
  const auto& qc = *r.graph.tensor("conv.out").quant;
  EXPECT_NEAR(qc.scale[0], 5.0 / 255.0, 1e-7);
  EXPECT_EQ(qc.zero_point[0], -31);
  // Relu out: [0, 3.1] -> s = 3.1/255, zp = round(-128 - 0) = -128.
  const auto& qr = *r.graph.tensor("relu.out").quant;
  EXPECT_NEAR(qr.scale[0], 3.1 / 255.0, 1e-7);
  EXPECT_EQ(qr.zero_point[0], -128);
  // Bias: scale s_x s_w[c] = (5/255)(1/127) = 1.54392e-4 and (5/255)(0.5/127) = 7.71962e-5;
  // 0.1 / 1.54392e-4 = 647.7 -> 648 -> 0.1000463; -0.2 / 7.71962e-5 = -2590.8 -> -2591 -> -0.2000154.
  const Tensor& bias = r.graph.tensor("conv.bias");
  ASSERT_TRUE(bias.quant);
  EXPECT_EQ(bias.quant->type, ElemType::Int32);
  EXPECT_NEAR(bias.quant->scale[0], 5.0 / 255.0 / 127.0, 1e-10);
  EXPECT_NEAR(bias.quant->scale[1], 2.5 / 255.0 / 127.0, 1e-10);
  EXPECT_NEAR(bias.float_data[0], 648 * 5.0 / 32385.0, 1e-7);
  EXPECT_NEAR(bias.float_data[1], -2591 * 2.5 / 32385.0, 1e-7);
  EXPECT_EQ(r.activations, 3);
  EXPECT_EQ(r.biases, 1);
}

TEST(Ptq, FusedActivationLeavesTheConvOutputUnquantised) {
  // conv-act fuses the Relu into the Conv's epilogue: the Conv output never leaves the
  // accumulator, so it gets no parameters; x and the Relu output do.
  const GraphBuilder b = conv_relu();
  const PtqResult r = quantize_graph(b.g, builtin_strategy("conv-act"), two_samples());
  EXPECT_FALSE(r.graph.tensor("conv.out").quant.has_value());
  EXPECT_TRUE(r.graph.tensor("relu.out").quant.has_value());
  EXPECT_EQ(r.activations, 2);
}

TEST(Ptq, AQuantisedModelIsRefused) {
  GraphBuilder b = conv_relu();
  b.g.tensor("x").quant = QuantParams{{0.1f}, {0}, 1, ElemType::Int8};
  EXPECT_THROW(quantize_graph(b.g, builtin_strategy("none"), two_samples()), ConfigError);
}

TEST(Calibration, PercentileRangeByNearestRank) {
  std::vector<float> v;
  for (int i = -500; i < 500; ++i) v.push_back(float(i));  // sorted: v[k] = k - 500, N = 1000
  // 99 %: hi = v[ceil(990) - 1] = v[989] = 489; lo (1 %) = v[ceil(10) - 1] = v[9] = -491.
  const TensorRange r = percentile_range(v, 99.0);
  EXPECT_EQ(r.lo, -491.0f);
  EXPECT_EQ(r.hi, 489.0f);
  // 100 % is min/max.
  EXPECT_EQ(percentile_range(v, 100.0).lo, -500.0f);
  EXPECT_EQ(percentile_range(v, 100.0).hi, 499.0f);
  // 99.99 % of 10000 values -5000..4999: hi = v[9998] = 4998 (the largest value dropped),
  // lo = v[ceil(1) - 1] = v[0] = -5000.
  std::vector<float> w;
  for (int i = -5000; i < 5000; ++i) w.push_back(float(i));
  EXPECT_EQ(percentile_range(w, 99.99).hi, 4998.0f);
  EXPECT_EQ(percentile_range(w, 99.99).lo, -5000.0f);
}

TEST(Calibration, PercentileOverSamplesEqualsPercentileOfAllValues) {
  // x [1, 500] -> Relu. Sample 1: x = -500..-1, sample 2: x = 0..499: together -500..499, so
  // x's 99 % range is [-491, 489] as above. Relu out: 501 zeros then 1..499; sorted index 989
  // is 489, index 9 is 0 -> [0, 489].
  GraphBuilder b;
  b.output(b.unary("relu", "Relu", b.input("x", {1, 500})));
  RefTensor s1, s2;
  s1.shape = s2.shape = {1, 500};
  for (int i = 0; i < 500; ++i) {
    s1.f.push_back(float(i - 500));
    s2.f.push_back(float(i));
  }
  CalibrationOptions o;
  o.method = Calibrator::Percentile;
  o.percentile = 99.0;
  const auto ranges = calibrate(b.g, {{{"x", s1}}, {{"x", s2}}}, o);
  EXPECT_EQ(ranges.at("x").lo, -491.0f);
  EXPECT_EQ(ranges.at("x").hi, 489.0f);
  EXPECT_EQ(ranges.at("relu.out").lo, 0.0f);
  EXPECT_EQ(ranges.at("relu.out").hi, 489.0f);
  o.percentile = 40;
  EXPECT_THROW(calibrate(b.g, {{{"x", s1}}}, o), ConfigError);
}

// Conv 3x3 (4 -> 8 channels) -> BatchNormalization -> Relu, BN gamma spread over three orders
// of magnitude (0.04 .. 40, var 1, mean 0). Why this model: folding multiplies channel c's
// weights by f_c = gamma_c / sqrt(var_c + eps).
//  - Folded before quantising, each channel's scale max|w_c f_c| / 127 follows f_c, so every
//    channel keeps its 255 levels; the Conv output is not materialised (BN folded into it).
//  - Unfused (strategy none), the Conv output is rounded to a per-tensor grid before BN, a
//    rounding step the folded model does not have: the folded model is at least as good.
//  - Folded after quantising (the naive flow), the folded weights are rounded back onto the
//    grid chosen for the unfolded weights: channels with f_c > 1 saturate at +-127 (a 40x
//    weight clipped to 1x), channels with f_c << 1 keep 127 f_c levels (5 at 0.04). Far worse.
GraphBuilder bn_model() {
  GraphBuilder b;
  const std::string c = b.conv("conv", b.input("x", {1, 4, 8, 8}), 8, 3, 1, 1, 1, true);
  const std::string n = b.bn("bn", c);
  b.output(b.unary("relu", "Relu", n));
  b.g.tensor("bn.scale").float_data = {0.04f, 0.1f, 0.3f, 1.0f, 3.0f, 8.0f, 20.0f, 40.0f};
  b.g.tensor("bn.var").float_data.assign(8, 1.0f);
  b.g.tensor("bn.mean").float_data.assign(8, 0.0f);
  return b;
}

double quantised_sqnr(const Graph& g, const Strategy& s, FoldOrder order) {
  const auto calib = generate_calibration(g, 1, 4);
  PtqOptions o;
  o.order = order;
  const PtqResult r = quantize_graph(g, s, calib, o);
  const RefTensorMap in = generate_calibration(g, 99, 1)[0];  // not a calibration sample
  ReferenceOptions fp, fq;
  fp.apply_quant = false;
  const auto ref = run_reference(g, in, fp);
  const auto got = run_reference(r.graph, in, fq);
  return sqnr_db(ref.at(g.outputs[0]).f, got.at(g.outputs[0]).f);
}

TEST(Ptq, FoldingBeforeQuantisingBeatsUnfusedAndFoldingAfter) {
  const Graph g = bn_model().g;
  const double unfused = quantised_sqnr(g, builtin_strategy("none"), FoldOrder::FoldThenQuantize);
  const double before = quantised_sqnr(g, builtin_strategy("conv-bn"), FoldOrder::FoldThenQuantize);
  const double after = quantised_sqnr(g, builtin_strategy("conv-bn"), FoldOrder::QuantizeThenFold);
  std::printf("SQNR dB: unfused %.2f, fold before quantising %.2f, fold after quantising %.2f\n", unfused, before,
              after);
  EXPECT_GE(before, unfused);
  EXPECT_LT(after, before - 10.0);  // at least 10x the noise power
  // The no-BN strategy gives the same fold count either way.
  const auto calib = generate_calibration(g, 1, 2);
  PtqOptions o;
  o.order = FoldOrder::QuantizeThenFold;
  EXPECT_EQ(quantize_graph(g, builtin_strategy("conv-bn"), calib, o).folded_bn, 1);
  EXPECT_EQ(quantize_graph(g, builtin_strategy("conv-bn"), calib).folded_bn, 1);
  EXPECT_EQ(quantize_graph(g, builtin_strategy("none"), calib).folded_bn, 0);
}

TEST(Ptq, FoldAfterQuantKeepsTheOldScalesAndLeavesLayersWithoutBnAlone) {
  const Graph g = bn_model().g;
  const auto calib = generate_calibration(g, 1, 2);
  PtqOptions o;
  o.order = FoldOrder::QuantizeThenFold;
  const PtqResult r = quantize_graph(g, builtin_strategy("conv-bn"), calib, o);
  // The folded weights sit on the grid of the unfolded ones: scales max|w_c| / 127 of conv.weight.
  const Tensor& wf = r.graph.tensor("conv.W_folded");
  ASSERT_TRUE(wf.quant);
  EXPECT_EQ(wf.quant->scale, weight_params(g.tensor("conv.weight"), 0).scale);
  for (std::size_t e = 0; e < wf.float_data.size(); ++e) {
    const float q = wf.float_data[e] / wf.quant->scale[e / 36];  // 36 = 4 x 3 x 3 weights per output channel
    ASSERT_NEAR(q, std::nearbyint(q), 1e-3) << e;
    ASSERT_LE(std::fabs(q), 127.5f) << e;
  }
  // Channel 7 (gamma 40): folding multiplies its weights by 40, so the largest ones saturate at 127.
  int saturated = 0;
  for (std::size_t e = 7 * 36; e < 8 * 36; ++e)
    saturated += std::fabs(wf.float_data[e] / wf.quant->scale[7]) > 126.5f ? 1 : 0;
  EXPECT_GT(saturated, 18);  // U(-0.5, 0.5) weights: |w| > max/40 for ~97 % of them, saturating
  // A model without BN: the same parameters in either order.
  const Graph plain = conv_relu().g;
  const PtqResult a = quantize_graph(plain, builtin_strategy("conv-bn"), two_samples(), o);
  const PtqResult b = quantize_graph(plain, builtin_strategy("conv-bn"), two_samples());
  ASSERT_TRUE(a.graph.tensor("conv.weight").quant && a.graph.tensor("conv.bias").quant);
  EXPECT_EQ(a.graph.tensor("conv.weight").float_data, b.graph.tensor("conv.weight").float_data);
  EXPECT_EQ(a.graph.tensor("conv.bias").float_data, b.graph.tensor("conv.bias").float_data);
  EXPECT_EQ(a.folded_bn, 0);
}

std::string error_of(const Graph& g, const std::string& dir) {
  try {
    read_calibration_dir(g, dir);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(Calibration, FolderLayoutsAreRead) {
  const Graph g = conv_relu().g;
  const std::string dir = fresh_dir("calib_ok");
  write_npy(dir + "/a.npy", tensor({1, 1, 2, 2}, {1, 2, 3, 4}));
  write_tensor_pb(dir + "/b.pb", tensor({4}, {5, 6, 7, 8}), "x");  // element count is what must match
  const auto s = read_calibration_dir(g, dir);
  ASSERT_EQ(s.size(), 2u);  // one file per sample, sorted: a.npy then b.pb
  EXPECT_EQ(s[0].at("x").f, (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(s[1].at("x").shape, (std::vector<std::int64_t>{1, 1, 2, 2}));
  // ONNX backend-test layout: one sub-folder per sample holding input_0.pb.
  const std::string sets = fresh_dir("calib_sets");
  for (int k = 0; k < 3; ++k) {
    fs::create_directories(sets + "/test_data_set_" + std::to_string(k));
    write_tensor_pb(sets + "/test_data_set_" + std::to_string(k) + "/input_0.pb",
                    tensor({1, 1, 2, 2}, {float(k), 0, 0, 0}), "x");
  }
  const auto t = read_calibration_dir(g, sets);
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[2].at("x").f[0], 2.0f);
}

TEST(Calibration, BadFoldersAndFilesAreRefusedNamingTheFile) {
  const Graph g = conv_relu().g;
  EXPECT_NE(error_of(g, "/nonexistent/calib").find("no such folder"), std::string::npos);
  const std::string empty = fresh_dir("calib_empty");
  EXPECT_NE(error_of(g, empty).find("holds no calibration samples"), std::string::npos);
  const std::string shape = fresh_dir("calib_shape");
  write_npy(shape + "/a.npy", tensor({3}, {1, 2, 3}));
  const std::string e1 = error_of(g, shape);
  EXPECT_NE(e1.find(shape + "/a.npy: error: 3 values, graph input 'x' (1x1x2x2) has 4"), std::string::npos) << e1;
  const std::string ints = fresh_dir("calib_int");
  RefTensor it;
  it.shape = {4};
  it.type = ElemType::Int64;
  it.i = {1, 2, 3, 4};
  write_tensor_pb(ints + "/a.pb", it, "x");
  const std::string e2 = error_of(g, ints);
  EXPECT_NE(e2.find(ints + "/a.pb: error: calibration file for graph input 'x' holds integer data"), std::string::npos)
      << e2;
  const std::string corrupt = fresh_dir("calib_corrupt");
  std::ofstream(corrupt + "/a.pb", std::ios::binary) << "\xff\xff\xff garbage";
  const std::string e3 = error_of(g, corrupt);
  EXPECT_NE(e3.find(corrupt + "/a.pb"), std::string::npos) << e3;
  EXPECT_NE(e3.find("not a serialized onnx.TensorProto"), std::string::npos) << e3;
  const std::string npy8 = fresh_dir("calib_f8");
  const std::string h = "{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }\n";
  std::ofstream(npy8 + "/a.npy", std::ios::binary)
      << std::string("\x93NUMPY\x01\x00", 8) + char(h.size()) + char(0) + h + std::string(32, '\0');
  EXPECT_NE(error_of(g, npy8).find("dtype '<f8' is not '<f4' (float32), '<i8' (int64) or '<i4' (int32)"), std::string::npos);
  const std::string missing = fresh_dir("calib_missing");
  fs::create_directories(missing + "/sample0");
  write_npy(missing + "/sample0/y.npy", tensor({4}, {1, 2, 3, 4}));
  const std::string e4 = error_of(g, missing);
  EXPECT_NE(e4.find("sample0: error: calibration sample has no file for graph input 'x'"), std::string::npos) << e4;
  EXPECT_THROW(generate_calibration(g, 1, 0), ConfigError);
  EXPECT_THROW(parse_calibrator("entropy"), ConfigError);
}

}  // namespace
}  // namespace npu::compiler
