// int8 rules for ReduceMean, Gather and Pad (issue 28; docs/functional.md "int8 execution"):
// the ops that stopped `npu verify` in int8 on torchvision's mnasnet1_0 (the head's mean over
// H, W), vit_b_16 (the class token x[:, 0]) and swin_t (Gather of q, k, v; the window Pad).
// First the integer reference's rules on small quantised graphs against values derived by hand
// (TFLite's int8 MEAN, a Pad writing its value's code, a Gather moving codes), then small graphs
// through post-training quantisation, compiled and run with int8 data under every strategy,
// bit-exact with the integer reference.
#include <gtest/gtest.h>

#include "int8_test_util.hpp"
#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/reference/reference_quantised.hpp"
#include "npu/compiler/transforms/canonicalize/merge_pad.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "reference/quantised_rules.hpp"
#include "test_compile_graphs.hpp"

namespace {

using namespace npu;
using compiler::testing::GraphBuilder;
using Codes = std::vector<std::int8_t>;

void grid(compiler::Graph& g, const std::string& t, float scale, std::int64_t zp) {
  compiler::QuantParams q;
  q.scale = {scale};
  q.zero_point = {zp};
  g.tensors.at(t).quant = q;
}

HwConfig edge_hw() { return load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml"); }

// x [1,2,2,2] on (0.5, -10): channel 0 holds 1.0, 2.0, 3.0, 4.5 (codes -8, -6, -4, -1), channel 1
// holds -1.0, -0.5, 0.0, -1.0 (codes -12, -11, -10, -12) -> ReduceMean -> y of shape `ys`.
GraphBuilder mean_graph(std::vector<std::int64_t> axes, int keepdims, std::vector<std::int64_t> ys) {
  GraphBuilder b("mean");
  b.input("x", {1, 2, 2, 2});
  b.add_tensor("y", std::move(ys));
  compiler::Node& n = b.node("mean", "ReduceMean", {"x"}, {"y"});
  n.attrs["axes"] = axes;
  n.attrs["keepdims"] = std::int64_t{keepdims};
  b.output("y");
  grid(b.g, "x", 0.5f, -10);
  return b;
}

const std::vector<float> kMeanInput = {1.0f, 2.0f, 3.0f, 4.5f, -1.0f, -0.5f, 0.0f, -1.0f};

Codes run_ref(const compiler::Graph& g, const std::vector<float>& x) {
  return compiler::run_quantised_reference(g, {{"x", x}}).at("y").q;
}

TEST(Int8LayoutRules, ReduceMeanOverHwIsTflitesMeanByHand) {
  // mnasnet's head: mean over H, W onto an output grid of its own, (0.25, 5).
  // M = s_x / (s_y n) = 0.5 / (0.25 x 4) = 0.5 (multiplier 2^30, shift 0).
  // Channel 0: sum (q - zp) = 2 + 4 + 6 + 9 = 21; 21 x 0.5 = 10.5, ties up -> 11; 5 + 11 = 16
  //   (the real mean 2.625 is 10.5 steps of 0.25).
  // Channel 1: -2 - 1 + 0 - 2 = -5; -2.5 ties up (gemmlowp's high mul) -> -2; 5 - 2 = 3.
  GraphBuilder b = mean_graph({2, 3}, 0, {1, 2});
  grid(b.g, "y", 0.25f, 5);
  EXPECT_EQ(run_ref(b.g, kMeanInput), (Codes{16, 3}));
}

TEST(Int8LayoutRules, ReduceMeanOnItsInputsGridIsTheIntegerAverageByHand) {
  // Same grid in and out: the raw codes' sum / 4 rounded half away from zero, as an int8
  // AveragePool: (-8 - 6 - 4 - 1) / 4 = -4.75 -> -5; (-12 - 11 - 10 - 12) / 4 = -11.25 -> -11.
  GraphBuilder b = mean_graph({-1, -2}, 1, {1, 2, 1, 1});
  grid(b.g, "y", 0.5f, -10);
  EXPECT_EQ(run_ref(b.g, kMeanInput), (Codes{-5, -11}));
}

TEST(Int8LayoutRules, ReduceMeanOverAnInnerAxisByHand) {
  // Mean over C (axis 1, keepdims) onto (0.25, 5): n = 2, M = 0.5 / (0.25 x 2) = 1.
  //   (1.0, -1.0): 2 - 2 = 0 -> 5;   (2.0, -0.5): 4 - 1 = 3 -> 8;
  //   (3.0, 0.0): 6 + 0 = 6 -> 11;   (4.5, -1.0): 9 - 2 = 7 -> 12.
  GraphBuilder b = mean_graph({1}, 1, {1, 1, 2, 2});
  grid(b.g, "y", 0.25f, 5);
  EXPECT_EQ(run_ref(b.g, kMeanInput), (Codes{5, 8, 11, 12}));
}

// x [1,1,2,2] on (0.5, 3): 1.0, -1.0, 0.5, 2.0 -> codes 5, 1, 4, 7; Pad one row on top and one
// column on the right (pads [0,0,1,0, 0,0,0,1]) -> y [1,1,3,3] on the same grid.
GraphBuilder pad_graph(const std::string& mode, const std::string& value) {
  GraphBuilder b("pad");
  b.input("x", {1, 1, 2, 2});
  b.ints("pads", {0, 0, 1, 0, 0, 0, 0, 1});
  b.add_tensor("y", {1, 1, 3, 3});
  std::vector<std::string> ins = {"x", "pads"};
  if (!value.empty()) ins.push_back(value);
  b.node("pad", "Pad", ins, {"y"}).attrs["mode"] = mode;
  b.output("y");
  grid(b.g, "x", 0.5f, 3);
  grid(b.g, "y", 0.5f, 3);
  return b;
}

TEST(Int8LayoutRules, PadWritesItsValuesCodeByHand) {
  const std::vector<float> x = {1.0f, -1.0f, 0.5f, 2.0f};
  // No constant_value: the real 0, whose code is the zero point 3.
  EXPECT_EQ(run_ref(pad_graph("constant", "").g, x), (Codes{3, 3, 3, 5, 1, 3, 4, 7, 3}));
  // constant_value 1.0: 1.0 / 0.5 + 3 = 5.
  GraphBuilder one = pad_graph("constant", "v");
  one.scalar("v", 1.0f);
  EXPECT_EQ(run_ref(one.g, x), (Codes{5, 5, 5, 5, 1, 5, 4, 7, 5}));
  // edge: the nearest input code (row 0 repeats row 1, column 2 repeats column 1).
  EXPECT_EQ(run_ref(pad_graph("edge", "").g, x), (Codes{5, 1, 1, 5, 1, 1, 4, 7, 7}));
}

// x [1,3,2] on (0.5, 0): 0.5, 1.0, ..., 3.0 -> codes 1..6; Gather along axis 1.
GraphBuilder gather_graph(std::vector<std::int64_t> idx, std::vector<std::int64_t> idx_shape,
                          std::vector<std::int64_t> ys) {
  GraphBuilder b("gather");
  b.input("x", {1, 3, 2});
  b.ints("idx", std::move(idx));
  b.g.tensors.at("idx").shape = std::move(idx_shape);
  b.add_tensor("y", std::move(ys));
  b.node("gather", "Gather", {"x", "idx"}, {"y"}).attrs["axis"] = std::int64_t{1};
  b.output("y");
  grid(b.g, "x", 0.5f, 0);
  grid(b.g, "y", 0.5f, 0);
  return b;
}

TEST(Int8LayoutRules, GatherMovesCodesByHand) {
  const std::vector<float> x = {0.5f, 1.0f, 1.5f, 2.0f, 2.5f, 3.0f};
  // ViT's class token: a scalar index drops the axis, x[:, 2] = codes 5, 6.
  EXPECT_EQ(run_ref(gather_graph({2}, {}, {1, 2}).g, x), (Codes{5, 6}));
  // Indices [0, -1] (-1 is row 2): codes 1, 2, 5, 6.
  EXPECT_EQ(run_ref(gather_graph({0, -1}, {2}, {1, 2, 2}).g, x), (Codes{1, 2, 5, 6}));
  // Another output grid: a Gather moves bytes, so it is refused, naming the node.
  GraphBuilder other = gather_graph({2}, {}, {1, 2});
  grid(other.g, "y", 0.25f, 0);
  try {
    run_ref(other.g, x);
    ADD_FAILURE() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("node 'gather' (Gather): input and output 'y' are on different int8 grids"),
              std::string::npos)
        << e.what();
  }
}

TEST(Int8LayoutRules, GatherByComputedIndicesIsRefusedWithTheReason) {
  GraphBuilder b = gather_graph({2}, {}, {1, 2});
  b.g.tensors.at("idx").is_constant = false;  // as if computed at run time
  b.g.tensors.at("idx").int_data.clear();
  try {
    compiler::qref::layout_move(b.g, b.g.nodes.at(0), {0.5, 0}, {1, 3, 2}, Codes{1, 2, 3, 4, 5, 6});
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("Gather by indices computed at run time ('idx') has no int8 rule"),
              std::string::npos)
        << e.what();
  }
}

// ---- with data: PTQ, compile, run, bit-exact with the integer reference ----

// x [1,3,6,6] -> conv 3x3 (8) -> Relu -> r; mean over H, W (keepdims 0: mnasnet's head) -> Gemm
// (8 -> 4) -> logits; and mean over W alone (keepdims 1) -> [1,8,6,1] as a second output.
compiler::Graph mean_head() {
  GraphBuilder b("mean-head");
  const std::string r = b.unary("relu", "Relu", b.conv("conv", b.input("x", {1, 3, 6, 6}), 8, 3, 1, 1, 1, true));
  b.add_tensor("m", {1, 8});
  b.node("mean_hw", "ReduceMean", {r}, {"m"}).attrs["axes"] = std::vector<std::int64_t>{2, 3};
  b.g.nodes.back().attrs["keepdims"] = std::int64_t{0};
  b.constant("fc.w", {4, 8}, -0.5f, 0.5f);
  b.constant("fc.b", {4}, -0.1f, 0.1f);
  b.add_tensor("logits", {1, 4});
  b.node("fc", "Gemm", {"m", "fc.w", "fc.b"}, {"logits"}).attrs["transB"] = std::int64_t{1};
  b.output("logits");
  b.add_tensor("mw", {1, 8, 6, 1});
  b.node("mean_w", "ReduceMean", {r}, {"mw"}).attrs["axes"] = std::vector<std::int64_t>{-1};
  b.output("mw");
  return b.g;
}

TEST(Int8LayoutRules, ReduceMeanIsBitExactUnderEveryStrategy) {
  const compiler::Graph g = mean_head();
  // The means get grids of their own from calibration, so the MEAN requantisation runs.
  const auto calib = compiler::generate_calibration(g, 11, 4);
  const compiler::Graph qg = compiler::quantize_graph(g, compiler::builtin_strategy("none"), calib).graph;
  EXPECT_FALSE(qg.tensor("m").quant->scale == qg.tensor("relu.out").quant->scale ||
               qg.tensor("mw").quant->scale == qg.tensor("relu.out").quant->scale);
  test::expect_int8_bit_exact_under_every_strategy(g, edge_hw(), 11, 12);
}

// x [1,4,6,6] -> conv 1x1 (8) -> c; Reshape [1,8,36] -> Transpose [1,36,8] -> Gather index 0
// along axis 1 (ViT's class token) -> cls [1,8]; Gather of channels [1, 3, 5, 7] of c (an even
// step) -> odd [1,4,6,6].
compiler::Graph gather_net() {
  GraphBuilder b("gather-net");
  const std::string c = b.conv("conv", b.input("x", {1, 4, 6, 6}), 8, 1, 1, 0, 1, true);
  b.ints("shape", {1, 8, 36});
  b.add_tensor("tok", {1, 8, 36});
  b.node("reshape", "Reshape", {c, "shape"}, {"tok"});
  b.add_tensor("tokT", {1, 36, 8});
  b.node("transpose", "Transpose", {"tok"}, {"tokT"}).attrs["perm"] = std::vector<std::int64_t>{0, 2, 1};
  b.ints("zero", {0});
  b.g.tensors.at("zero").shape = {};
  b.add_tensor("cls", {1, 8});
  b.node("cls", "Gather", {"tokT", "zero"}, {"cls"}).attrs["axis"] = std::int64_t{1};
  b.output("cls");
  b.ints("odd_idx", {1, 3, 5, 7});
  b.add_tensor("odd", {1, 4, 6, 6});
  b.node("odd", "Gather", {c, "odd_idx"}, {"odd"}).attrs["axis"] = std::int64_t{1};
  b.output("odd");
  return b.g;
}

TEST(Int8LayoutRules, GatherIsBitExactUnderEveryStrategy) {
  test::expect_int8_bit_exact_under_every_strategy(gather_net(), edge_hw(), 21, 22);
}

TEST(Int8LayoutRules, ViTClassTokenConcatAndGatherAreBitExactUnderEveryStrategy) {
  // ViT's head in small: a constant class token [1,1,8] (U(-3, 3): wider than the tokens, so
  // the shared grid must cover it) concatenated before the 36 computed tokens [1,36,8], then
  // x[:, 0]. The constant gets the Concat's grid from PTQ; before, the integer reference
  // stopped at the Concat ("constant ... has no per-tensor int8 quantisation").
  GraphBuilder b("vit-cls");
  const std::string c = b.conv("conv", b.input("x", {1, 4, 6, 6}), 8, 1, 1, 0, 1, true);
  b.ints("shape", {1, 8, 36});
  b.add_tensor("tok", {1, 8, 36});
  b.node("reshape", "Reshape", {c, "shape"}, {"tok"});
  b.add_tensor("tokT", {1, 36, 8});
  b.node("transpose", "Transpose", {"tok"}, {"tokT"}).attrs["perm"] = std::vector<std::int64_t>{0, 2, 1};
  b.constant("cls_token", {1, 1, 8}, -3.0f, 3.0f);
  b.add_tensor("seq", {1, 37, 8});
  b.node("cat", "Concat", {"cls_token", "tokT"}, {"seq"}).attrs["axis"] = std::int64_t{1};
  b.ints("zero", {0});
  b.g.tensors.at("zero").shape = {};
  b.add_tensor("cls", {1, 8});
  b.node("cls", "Gather", {"seq", "zero"}, {"cls"}).attrs["axis"] = std::int64_t{1};
  b.output(b.unary("relu", "Relu", "cls"));
  const auto calib = compiler::generate_calibration(b.g, 51, 4);
  const compiler::Graph qg = compiler::quantize_graph(b.g, compiler::builtin_strategy("none"), calib).graph;
  ASSERT_TRUE(qg.tensor("cls_token").quant.has_value());
  EXPECT_EQ(qg.tensor("cls_token").quant->scale, qg.tensor("seq").quant->scale);
  EXPECT_EQ(qg.tensor("cls_token").quant->zero_point, qg.tensor("seq").quant->zero_point);
  test::expect_int8_bit_exact_under_every_strategy(b.g, edge_hw(), 51, 52);
}

// Swin's window Pad at sizes that divide (pads all 0): x [1,4,6,6] -> conv 1x1 (8) -> Pad
// zeros -> Relu.
TEST(Int8LayoutRules, ZeroPadIsBitExactUnderEveryStrategy) {
  GraphBuilder b("zero-pad");
  const std::string c = b.conv("conv", b.input("x", {1, 4, 6, 6}), 8, 1, 1, 0, 1, true);
  b.ints("pads", {0, 0, 0, 0, 0, 0, 0, 0});
  b.add_tensor("p", {1, 8, 6, 6});
  b.node("pad", "Pad", {c, "pads"}, {"p"});
  b.output(b.unary("relu", "Relu", "p"));
  test::expect_int8_bit_exact_under_every_strategy(b.g, edge_hw(), 31, 32);
}

TEST(Int8LayoutRules, PadByTheZeroPointEqualsTheConvsOwnPadding) {
  // x [1,4,6,6] -> conv 1x1 (4) -> Pad 1 around H, W with 0 -> conv 3x3 without pads. The
  // import merges such a Pad into the conv's padding (merge-pads), which int8 computes as taps
  // of x - zp_x = 0; the reference runs the Pad as written, padding with the zero point: the
  // program compiled from the merged graph is bit-exact with the reference of the unmerged one.
  GraphBuilder b("pad-conv");
  const std::string c = b.conv("conv1", b.input("x", {1, 4, 6, 6}), 4, 1, 1, 0, 1, true);
  b.ints("pads", {0, 0, 1, 1, 0, 0, 1, 1});
  b.add_tensor("p", {1, 4, 8, 8});
  b.node("pad", "Pad", {c, "pads"}, {"p"});
  b.output(b.conv("conv2", "p", 6, 3, 1, 0, 1, true));
  const HwConfig hw = edge_hw();
  const auto calib = compiler::generate_calibration(b.g, 41, 4);
  const compiler::RefTensorMap in = compiler::generate_calibration(b.g, 42, 1).at(0);
  for (const char* s : {"none", "depth-first"}) {
    const compiler::Strategy st = compiler::builtin_strategy(s);
    const compiler::Graph qg = compiler::quantize_graph(b.g, st, calib).graph;
    ASSERT_TRUE(qg.tensor("p").quant && qg.tensor("p").quant->zero_point != std::vector<std::int64_t>{0}) << s;
    compiler::Graph merged = qg;
    ASSERT_EQ(compiler::merge_pads(merged), 1) << s;
    const sim::Int8Check r = sim::check_int8_execution(compiler::compile(merged, hw, st), hw, qg, in);
    EXPECT_EQ(r.status, "bit-exact") << s;
  }
}

}  // namespace
