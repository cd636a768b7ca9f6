// The reference interpreter against an independent implementation, ONNX Runtime (npm
// onnxruntime-node, CPU, graph optimisations off, run by scripts/ort_reference.js), on the
// one-op reproductions of ../shared/models/cases (see its README) and the torchvision
// exports in ../shared/models/torchvision, each on a seeded random input. The interpreter
// runs the graph as load_model() leaves it (constants folded, GELU/HardSwish/LayerNorm chains
// recognised, zero Pads merged), ONNX Runtime runs the file as written: agreement checks
// those rewrites too. Skipped with a message where node, the npm packages
// (bash scripts/install_ort.sh) or the shared models are absent.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>

#include "npu/compiler/frontend/model_loader.hpp"
#include "npu/compiler/reference/reference_interpreter.hpp"
#include "npu/compiler/frontend/tensor_io.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "shared_data.hpp"
#include "ort_util.hpp"
#include "tool_runner.hpp"
#include "test_onnx_util.hpp"

namespace npu::compiler {
namespace {

namespace fs = std::filesystem;

using npu::test::ort_missing;

/// Seeded input in [-1, 1) for every graph input (float) of `g`.
RefTensorMap random_inputs(const Graph& g) {
  std::mt19937 rng(20261130);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  RefTensorMap in;
  for (const std::string& name : g.inputs) {
    RefTensor t = RefTensor::zeros(g.tensor(name).shape);
    for (float& v : t.f) v = d(rng);
    in[name] = t;
  }
  return in;
}

/// Runs `model` in both and compares every graph output: max |ours - ort| / max |ort| <= rel.
void compare_with_ort(const std::string& model, double rel = 1e-4) {
  std::string ort_dir;
  NPU_REQUIRE_SHARED_OR_SKIP(model);
  if (const std::string why = ort_missing(ort_dir); !why.empty()) GTEST_SKIP() << "ONNX Runtime cross-check skipped: " << why;
  const Graph g = load_model(model);
  const RefTensorMap inputs = random_inputs(g);
  const std::string dir = test::fresh_dir(fs::path(model).stem().string());
  std::string cmd = "NPU_ORT_DIR='" + ort_dir + "' node '" + NPU_SOURCE_DIR + "/scripts/ort_reference.js' '" + model + "' '" + dir + "'";
  for (std::size_t k = 0; k < g.inputs.size(); ++k) {
    const std::string pb = dir + "/input_" + std::to_string(k) + ".pb";
    write_tensor_pb(pb, inputs.at(g.inputs[k]), g.inputs[k]);
    cmd += " '" + pb + "'";
  }
  const test::ToolResult r = test::run_shell(cmd);
  ASSERT_EQ(r.status, 0) << cmd << "\n" << r.output;
  const RefTensorMap ours = run_reference(g, inputs);
  std::size_t compared = 0;
  for (std::size_t k = 0; fs::exists(dir + "/output_" + std::to_string(k) + ".pb"); ++k) {
    std::string name;
    const RefTensor want = read_tensor_pb(dir + "/output_" + std::to_string(k) + ".pb", &name);
    ASSERT_TRUE(ours.count(name)) << "ONNX Runtime output '" << name << "' is not a graph output of the loaded model";
    const TensorDiff d = compare_tensors(ours.at(name), want);
    std::printf("%s: output '%s' max abs %.3g, max |ort| %.4g, relative %.3g\n", fs::path(model).filename().c_str(),
                name.c_str(), d.max_abs, d.max_ref, d.max_rel);
    EXPECT_LE(d.max_rel, rel) << "output '" << name << "': max abs " << d.max_abs << " of max |ort| " << d.max_ref;
    ++compared;
  }
  EXPECT_EQ(compared, g.outputs.size()) << r.output;
  fs::remove_all(dir);
}

const std::string kOrtCases = npu::test::shared_path("models/cases/");

TEST(OrtScript, BadUseIsAnErrorThatSaysWhatToDo) {
  if (test::run_shell("command -v node").status != 0) GTEST_SKIP() << "node is not installed (apt-get install nodejs npm)";
  const std::string script = "node '" + std::string(NPU_SOURCE_DIR) + "/scripts/ort_reference.js'";
  // No arguments: usage, exit 1.
  test::ToolResult r = test::run_shell(script);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("usage: node scripts/ort_reference.js MODEL.onnx OUT_DIR INPUT.pb"), std::string::npos) << r.output;
  // Packages absent: exit 2 (callers skip) and the install command.
  r = test::run_shell("NPU_ORT_DIR=/nonexistent " + script + " m.onnx out in.pb");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("npm package 'onnxruntime-node' is not installed under /nonexistent"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("run: bash scripts/install_ort.sh"), std::string::npos) << r.output;
  std::string ort_dir;
  if (const std::string why = ort_missing(ort_dir); !why.empty()) GTEST_SKIP() << why;
  // A model that does not exist: exit 1 naming it.
  r = test::run_shell("NPU_ORT_DIR='" + ort_dir + "' " + script + " /nonexistent/m.onnx /tmp in.pb");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("/nonexistent/m.onnx: no such file"), std::string::npos) << r.output;
}

class OrtCase : public ::testing::TestWithParam<const char*> {};

TEST_P(OrtCase, InterpreterMatchesOnnxRuntime) { compare_with_ort(kOrtCases + GetParam()); }

// Every file of cases/README.md but legality/conv_with_activation_attr.onnx (below), with the
// converter cases as written (the interpreter runs them after recognise-affine's rewrites).
INSTANTIATE_TEST_SUITE_P(SharedCases, OrtCase,
                         ::testing::Values("identity_const_bias.onnx", "matmul_3d_const_b.onnx",
                                           "matmul_two_activations.onnx", "op_erf_gelu.onnx",
                                           "op_layernormalization_op17.onnx", "op_pad_avgpool.onnx", "op_pad_zero.onnx",
                                           "op_reducemean.onnx", "op_shape_gather_reshape.onnx",
                                           "op_sub_div_normalize.onnx", "op_unsqueeze.onnx", "resize_bilinear.onnx",
                                           "se_broadcast_mul.onnx", "transpose_then_convs_host.onnx",
                                           "legality/silu_sig_also_output.onnx", "legality/clip_5_1.onnx",
                                           "legality/conv_bn_bn.onnx", "legality/bn_not_after_conv.onnx",
                                           "converter/conv_scalar_affine_relu.onnx",
                                           "converter/conv_separate_bias_add_bn.onnx",
                                           "converter/graph_name_with_spaces.onnx"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           std::string s = info.param;
                           for (char& c : s)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return s.substr(0, s.size() - 5);  // drop "_onnx"
                         });

TEST(OrtCaseErrors, ConvWithAnUnknownAttributeIsRefusedNotIgnored) {
  // A Conv carrying a non-standard `activation` attribute: whatever the importer does with
  // it, the interpreter must not compute a plain Conv and call it the model's result.
  const std::string model = kOrtCases + "legality/conv_with_activation_attr.onnx";
  NPU_REQUIRE_SHARED_OR_SKIP(model);
  try {
    const Graph g = load_model(model);
    run_reference(g, random_inputs(g));
    FAIL() << "expected an error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("activation"), std::string::npos) << e.what();
  }
}

TEST(OrtQuantised, QdqModelMatchesOnnxRuntimeWithFakeQuantisation) {
  // tests/data/qdq_conv.onnx (scripts/make_qdq_model.py): Q/DQ around every activation,
  // int8 per-channel weights, a residual Add and a QLinearConv with uint8 activations. The
  // importer folds the Q/DQ pairs away and keeps their parameters; the interpreter rounds
  // each such tensor to its grid (apply_quant). The output is DequantizeLinear(y, 0.1, 128):
  // one grid step is 0.1, so agreement up to fp32 rounding of the pre-quantisation values
  // means equal values except where a value lies within ~1e-6 of a rounding tie.
  const std::string model = std::string(NPU_SOURCE_DIR) + "/tests/data/qdq_conv.onnx";
  std::string ort_dir;
  ASSERT_TRUE(fs::exists(model)) << model << " is in the repository";
  if (const std::string why = ort_missing(ort_dir); !why.empty()) GTEST_SKIP() << "ONNX Runtime cross-check skipped: " << why;
  const Graph g = load_model(model);
  const RefTensorMap inputs = random_inputs(g);
  const std::string dir = test::fresh_dir("qdq_conv");
  write_tensor_pb(dir + "/input_0.pb", inputs.at(g.inputs[0]), g.inputs[0]);
  const test::ToolResult r = test::run_shell("NPU_ORT_DIR='" + ort_dir + "' node '" + NPU_SOURCE_DIR +
                                             "/scripts/ort_reference.js' '" + model + "' '" + dir + "' '" + dir + "/input_0.pb'");
  ASSERT_EQ(r.status, 0) << r.output;
  const RefTensor want = read_tensor_pb(dir + "/output_0.pb");
  const RefTensor got = run_reference(g, inputs).at(g.outputs[0]);
  ASSERT_EQ(got.shape, want.shape);
  std::size_t exact = 0, one_step = 0;
  for (std::size_t e = 0; e < want.f.size(); ++e) {
    const float d = std::fabs(got.f[e] - want.f[e]);
    exact += d <= 1e-6f;
    one_step += d > 1e-6f && d <= 0.1001f;
  }
  std::printf("qdq_conv: %zu of %zu outputs equal to ONNX Runtime's, %zu one grid step (0.1) apart\n", exact,
              want.f.size(), one_step);
  EXPECT_EQ(exact + one_step, want.f.size());
  EXPECT_GE(double(exact), 0.99 * double(want.f.size()));
  // Without the rounding the interpreter computes the float graph: visibly different.
  ReferenceOptions plain;
  plain.apply_quant = false;
  const TensorDiff d = compare_tensors(run_reference(g, inputs, plain).at(g.outputs[0]), want);
  EXPECT_GT(d.max_abs, 1e-3) << "the quantisation made no difference: the test would not see it missing";
  fs::remove_all(dir);
}

// The detection ops (detection_ops.cpp) on models built here, each on a seeded input in [-1, 1).
// GridSample: the grid is the input scaled by 1.2 (Mul by a constant), so some points lie
// outside [-1, 1] and the padding modes matter. TopK: random values have no ties. NonZero: a
// Relu zeroes about half of the input first.
std::string grid_sample_model(const std::string& mode, const std::string& pad, int align) {
  test::OnnxModel m(16);
  m.input("x", {1, 2, 4, 5});
  m.input("g", {1, 3, 6, 2});
  m.init_float("s", {1}, {1.2f});
  m.node("Mul", "scale", {"g", "s"}, {"grid"});
  auto& n = m.node("GridSample", "gs", {"x", "grid"}, {"y"});
  test::OnnxModel::attr_s(n, "mode", mode);
  test::OnnxModel::attr_s(n, "padding_mode", pad);
  test::OnnxModel::attr_i(n, "align_corners", align);
  m.output("y");
  return m.write("gridsample_" + mode + "_" + pad + "_" + std::to_string(align) + ".onnx");
}

TEST(OrtDetectionOps, GridSampleEveryModePaddingAndAlignment) {
  for (const char* mode : {"bilinear", "nearest", "bicubic"})
    for (const char* pad : {"zeros", "border", "reflection"})
      for (int align : {0, 1}) {
        SCOPED_TRACE(std::string(mode) + " " + pad + " align_corners=" + std::to_string(align));
        compare_with_ort(grid_sample_model(mode, pad, align));
      }
}

TEST(OrtDetectionOps, TopKLargestSmallestAndNonZero) {
  for (int largest : {1, 0}) {
    test::OnnxModel m(13);
    m.input("x", {2, 7, 3});
    m.init_int64("k", {1}, {4});
    auto& n = m.node("TopK", "topk", {"x", "k"}, {"values", "indices"});
    test::OnnxModel::attr_i(n, "axis", 1);
    test::OnnxModel::attr_i(n, "largest", largest);
    m.output("values");
    m.output("indices");
    compare_with_ort(m.write("topk_" + std::to_string(largest) + ".onnx"), 0.0);
  }
  test::OnnxModel m(13);
  m.input("x", {3, 4, 5});
  m.node("Relu", "relu", {"x"}, {"r"});
  m.node("NonZero", "nz", {"r"}, {"idx"});
  m.output("idx");
  compare_with_ort(m.write("nonzero.onnx"), 0.0);
}

// NonMaxSuppression (roi_ops.cpp): 12 seeded boxes in [-1, 1) (either diagonal, some empty
// after min/max) and two classes of scores; thresholds and the per-class limit are constants.
TEST(OrtDetectionOps, NonMaxSuppressionOnSeededBoxes) {
  for (int center : {0, 1}) {
    test::OnnxModel m(13);
    m.input("boxes", {1, 12, 4});
    m.input("scores", {1, 2, 12});
    m.init_int64("max", {1}, {4});
    m.init_float("iou", {1}, {0.2f});
    m.init_float("score", {1}, {-0.3f});
    auto& n = m.node("NonMaxSuppression", "nms", {"boxes", "scores", "max", "iou", "score"}, {"selected"});
    test::OnnxModel::attr_i(n, "center_point_box", center);
    m.output("selected");
    compare_with_ort(m.write("nms_" + std::to_string(center) + ".onnx"), 0.0);
  }
}

// RoiAlign (roi_ops.cpp), opset 16: four RoIs in image coordinates (spatial_scale 0.5), one
// reaching past the feature map and one thinner than a pixel, over two batch images; every
// mode, coordinate mode and an adaptive and a fixed sampling grid.
TEST(OrtDetectionOps, RoiAlignEveryModeAndCoordinateMode) {
  for (const char* mode : {"avg", "max"})
    for (const char* ctm : {"half_pixel", "output_half_pixel"})
      for (int ratio : {0, 2}) {
        SCOPED_TRACE(std::string(mode) + " " + ctm + " sampling_ratio=" + std::to_string(ratio));
        test::OnnxModel m(16);
        m.input("x", {2, 3, 6, 7});
        m.init_float("rois", {4, 4}, {0, 0, 8, 6, 3.5f, 1.2f, 13.9f, 11.7f, 10, 9, 18, 16, 2, 2, 2.6f, 9});
        m.init_int64("idx", {4}, {0, 1, 1, 0});
        auto& n = m.node("RoiAlign", "roi", {"x", "rois", "idx"}, {"y"});
        test::OnnxModel::attr_s(n, "mode", mode);
        test::OnnxModel::attr_s(n, "coordinate_transformation_mode", ctm);
        test::OnnxModel::attr_i(n, "sampling_ratio", ratio);
        test::OnnxModel::attr_i(n, "output_height", 3);
        test::OnnxModel::attr_i(n, "output_width", 2);
        test::OnnxModel::attr_f(n, "spatial_scale", 0.5f);
        m.output("y");
        compare_with_ort(m.write(std::string("roialign_") + mode + "_" + ctm + "_" + std::to_string(ratio) + ".onnx"),
                         1e-6);
      }
}

// A video block (issue 28 kind 5): Conv3d 2 -> 4, k 3x3x3, strides (2,1,1), pads 1, with bias ->
// BatchNormalization -> Relu -> MaxPool3d k (2,2,2) s (1,2,2) -> AveragePool3d k 3x3x3 pads 1
// (count_include_pad 0) and, beside it, k (2,2,2) s 2 with count_include_pad 1. The NPU runs
// the same block with data against the interpreter (Conv3dData.* in tests/functional).
TEST(OrtConv3d, VideoBlockMatchesOnnxRuntime) {
  test::OnnxModel m(13);
  m.input("x", {1, 2, 5, 6, 6});
  std::vector<float> w(4 * 2 * 27);
  for (std::size_t k = 0; k < w.size(); ++k) w[k] = float(int(k * 37 % 101) - 50) / 100.0f;  // in [-0.5, 0.5]
  m.init_float("w", {4, 2, 3, 3, 3}, w);
  m.init_float("b", {4}, {0.1f, -0.2f, 0.05f, 0});
  m.init_float("g", {4}, {1.2f, 0.7f, 1.0f, 0.9f});
  m.init_float("be", {4}, {0.05f, -0.05f, 0, 0.1f});
  m.init_float("mu", {4}, {0.02f, -0.03f, 0.01f, 0});
  m.init_float("var", {4}, {0.8f, 1.3f, 1.0f, 0.6f});
  auto& c = m.node("Conv", "conv", {"x", "w", "b"}, {"y"});
  test::OnnxModel::attr_ints(c, "strides", {2, 1, 1});
  test::OnnxModel::attr_ints(c, "pads", {1, 1, 1, 1, 1, 1});
  m.node("BatchNormalization", "bn", {"y", "g", "be", "mu", "var"}, {"bn"});
  m.node("Relu", "relu", {"bn"}, {"r"});
  auto& mp = m.node("MaxPool", "mp", {"r"}, {"mp"});
  test::OnnxModel::attr_ints(mp, "kernel_shape", {2, 2, 2});
  test::OnnxModel::attr_ints(mp, "strides", {1, 2, 2});
  auto& ap = m.node("AveragePool", "ap", {"mp"}, {"ap"});
  test::OnnxModel::attr_ints(ap, "kernel_shape", {3, 3, 3});
  test::OnnxModel::attr_ints(ap, "pads", {1, 1, 1, 1, 1, 1});
  auto& ap2 = m.node("AveragePool", "ap2", {"r"}, {"ap2"});
  test::OnnxModel::attr_ints(ap2, "kernel_shape", {2, 2, 2});
  test::OnnxModel::attr_ints(ap2, "strides", {2, 2, 2});
  test::OnnxModel::attr_ints(ap2, "pads", {0, 0, 0, 1, 0, 0});
  test::OnnxModel::attr_i(ap2, "count_include_pad", 1);
  m.output("ap");
  m.output("ap2");
  compare_with_ort(m.write("video_block.onnx"));
}

const std::string kTorchvision = npu::test::shared_path("models/torchvision/");

class OrtTorchvision : public ::testing::TestWithParam<const char*> {};

TEST_P(OrtTorchvision, InterpreterMatchesOnnxRuntime) { compare_with_ort(kTorchvision + GetParam()); }

INSTANTIATE_TEST_SUITE_P(SharedModels, OrtTorchvision,
                         ::testing::Values("mobilenet_v3_large-bn-op13.onnx", "efficientnet_b0-bn-op13.onnx",
                                           "shufflenet_v2_x1_0-bn-op13.onnx", "transformer_enc-bn-op13.onnx"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           std::string s = info.param;
                           s = s.substr(0, s.find('-'));
                           for (char& c : s)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return s;
                         });

}  // namespace
}  // namespace npu::compiler
