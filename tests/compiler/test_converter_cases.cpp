// Converter-style exports (../shared/models/cases/converter/, README there): what paddle2onnx
// or tf2onnx write for the same layers torch writes otherwise.
#include <gtest/gtest.h>

#include <string>

#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/frontend/model_loader.hpp"
#include "npu/compiler/transforms/canonicalize/shape_inference.hpp"
#include "npu/compiler/transforms/pass_manager.hpp"
#include "fp32_config.hpp"
#include "npu/isa/assembly.hpp"
#include "shared_data.hpp"
#include "test_compile_graphs.hpp"
#include "tool_runner.hpp"

namespace npu::compiler {
namespace {

const std::string kConverter = npu::test::shared_path("models/cases/converter/");

TEST(ConverterCases, AGraphNameWithSpacesCompilesToAProgramNamedWithUnderscores) {
  // The graph is named "Model from Converter.": every command stopped with an internal error
  // while writing the program. A .npuasm name is one word, so the two spaces become '_'.
  const std::string path = kConverter + "graph_name_with_spaces.onnx";
  NPU_REQUIRE_SHARED_OR_SKIP(path);
  const Graph g = load_model(path);
  ASSERT_EQ(g.name, "Model from Converter.");
  const CompileResult r = compile(g, testing::edge_like_hw(), builtin_strategy("conv-bn-act"));
  EXPECT_EQ(r.program.name, "Model_from_Converter.");
  bool said = false;
  for (const std::string& w : r.warnings) said = said || w.find("the program is named 'Model_from_Converter.'") != std::string::npos;
  EXPECT_TRUE(said) << "the renaming is not said";
  const isa::Program back = isa::read_program(isa::write_program(r.program), "round-trip");
  EXPECT_EQ(back.name, "Model_from_Converter.");
  EXPECT_EQ(back.instructions.size(), r.program.instructions.size());
}

/// NPU layers of `file` under `strategy` on the edge-like preset.
std::size_t npu_layers(const std::string& file, const std::string& strategy) {
  const CompileResult r = compile(load_model(kConverter + file), testing::edge_like_hw(), builtin_strategy(strategy));
  std::size_t n = 0;
  for (const auto& L : r.lowered.layers) n += L.kind != LayerKind::Host;
  return n;
}

TEST(ConverterCases, AScalarAffineAfterAConvFoldsLikeABatchNorm) {
  // Conv -> Mul(scalar) -> Add(scalar) -> Relu: recognise-affine makes the Mul/Add one
  // BatchNormalization (the torch spelling Conv -> BN -> Relu), so the README's counts hold:
  // none runs Conv, BN, Relu (3; the unrecognised chain was 4), conv-bn folds the BN (2),
  // conv-bn-act fuses the Relu too (1).
  NPU_REQUIRE_SHARED_OR_SKIP(kConverter + "conv_scalar_affine_relu.onnx");
  EXPECT_EQ(npu_layers("conv_scalar_affine_relu.onnx", "none"), 3u);
  EXPECT_EQ(npu_layers("conv_scalar_affine_relu.onnx", "conv-bn"), 2u);
  EXPECT_EQ(npu_layers("conv_scalar_affine_relu.onnx", "conv-bn-act"), 1u);
}

TEST(ConverterCases, ASeparateBiasAddBeforeABatchNormBecomesTheConvsBias) {
  // Bias-less Conv -> Add([1,C,1,1] constant) -> BN: the Add is the Conv's bias, so none runs
  // Conv, BN (2; the Add was a third layer) and conv-bn one layer.
  NPU_REQUIRE_SHARED_OR_SKIP(kConverter + "conv_separate_bias_add_bn.onnx");
  EXPECT_EQ(npu_layers("conv_separate_bias_add_bn.onnx", "none"), 2u);
  EXPECT_EQ(npu_layers("conv_separate_bias_add_bn.onnx", "conv-bn"), 1u);
}

TEST(RecogniseAffine, ADivisionByZeroStaysAsWritten) {
  // Conv -> Div(0) -> Add(1): 1/0 would make an infinite BN scale, so the chain is left for
  // the vector unit as the file wrote it; Conv -> Mul(2) -> Add(1) is one BN.
  for (const float divisor : {0.0f, 0.5f}) {
    testing::GraphBuilder b("affine");
    const std::string x = b.input("x", {1, 4, 8, 8});
    const std::string y = b.binary("div", "Div", b.conv("conv", x, 4, 3, 1, 1), b.scalar("d", divisor));
    b.output(b.binary("add", "Add", y, b.scalar("one", 1.0f)));
    Graph g = b.g;
    run_import_passes(g, {"infer-shapes", "recognise-affine"}, "affine");
    std::vector<std::string> ops;
    for (const Node& n : g.nodes) ops.push_back(n.op_type);
    if (divisor == 0.0f) EXPECT_EQ(ops, (std::vector<std::string>{"Conv", "Div", "Add"}));
    else EXPECT_EQ(ops, (std::vector<std::string>{"Conv", "BatchNormalization"}));
  }
}

TEST(RecogniseAffine, AConstantAddOrSubAfterABiasedConvJoinsItsBias) {
  // New-user finding: Conv(bias B) -> Add(0.3) -> Relu stayed three layers under every strategy
  // (an Add-only chain makes no BatchNormalization). The Add joins the bias: B' = B + 0.3 (and
  // B - 0.3 for a Sub), so the Relu is the Conv's next node and fuse-activation can take it.
  for (const char* op : {"Add", "Sub"}) {
    testing::GraphBuilder b("affine");
    const std::string x = b.input("x", {1, 4, 8, 8});
    const std::string c = b.conv("conv", x, 4, 3, 1, 1, 1, /*bias=*/true);
    const std::vector<float> bias = b.g.tensors.at("conv.bias").float_data;
    b.output(b.unary("relu", "Relu", b.binary("shift", op, c, b.scalar("d", 0.3f))));
    Graph g = b.g;
    run_import_passes(g, {"infer-shapes", "recognise-affine"}, "affine");
    std::vector<std::string> ops;
    for (const Node& n : g.nodes) ops.push_back(n.op_type);
    ASSERT_EQ(ops, (std::vector<std::string>{"Conv", "Relu"})) << op;
    const Tensor& folded = g.tensor(g.nodes[0].inputs.at(2));
    ASSERT_EQ(folded.float_data.size(), 4u);
    const double sign = std::string(op) == "Add" ? 1.0 : -1.0;
    for (std::size_t k = 0; k < 4; ++k)
      EXPECT_EQ(folded.float_data[k], float(double(bias[k]) + sign * double(0.3f))) << op << " channel " << k;
    EXPECT_FALSE(g.has_tensor("conv.bias")) << "the original bias, read by nothing now, is dropped";
  }
}

TEST(RecogniseAffine, AConstantMinusTheConvIsABatchNormOfScaleMinusOne) {
  // Sub(c, conv) -> Relu (a converter's reversed subtraction) = conv x -1 + c: one
  // BatchNormalization with scale -1 and shift c (bias B folded in: -B + c), so conv-bn folds it
  // and the Relu fuses (new-user finding: recognised nothing, and int8 had no rule for Sub).
  testing::GraphBuilder b("affine");
  const std::string x = b.input("x", {1, 4, 8, 8});
  const std::string c = b.conv("conv", x, 4, 3, 1, 1, 1, /*bias=*/true);
  const std::vector<float> bias = b.g.tensors.at("conv.bias").float_data;
  b.output(b.unary("relu", "Relu", b.binary("rsub", "Sub", b.scalar("c", 2.0f), c)));
  Graph g = b.g;
  run_import_passes(g, {"infer-shapes", "recognise-affine"}, "affine");
  std::vector<std::string> ops;
  for (const Node& n : g.nodes) ops.push_back(n.op_type);
  ASSERT_EQ(ops, (std::vector<std::string>{"Conv", "BatchNormalization", "Relu"}));
  const Node& bn = g.nodes[1];
  EXPECT_EQ(g.tensor(bn.inputs[1]).float_data, std::vector<float>(4, -1.0f));  // scale
  EXPECT_EQ(g.tensor(bn.inputs[2]).float_data, std::vector<float>(4, 2.0f));   // shift c (the conv keeps B)
  EXPECT_EQ(g.tensor(g.nodes[0].inputs.at(2)).float_data, bias);
  // Div(c, conv) is 1 / conv: no affine, left as written.
  testing::GraphBuilder d("affine");
  const std::string y = d.binary("rdiv", "Div", d.scalar("c", 2.0f), d.conv("conv", d.input("x", {1, 4, 8, 8}), 4, 3, 1, 1));
  d.output(y);
  Graph gd = d.g;
  run_import_passes(gd, {"infer-shapes", "recognise-affine"}, "affine");
  EXPECT_EQ(gd.nodes.size(), 2u);
  EXPECT_EQ(gd.nodes[1].op_type, "Div");
}

/// `npu verify` of a converter case on `hw`: every strategy's row passes (fp32: relative error
/// within 1e-4 of the reference; int8: bit-exact with the integer reference).
void expect_verified(const std::string& file, const std::string& hw) {
  const std::string out = npu::test::fresh_dir("converter_verify_" + file);
  const npu::test::ToolResult r = npu::test::run_npu({"verify", kConverter + file, "--hw", hw, "--out", out});
  ASSERT_EQ(r.status, 0) << r.output;
  const nlohmann::json v = nlohmann::json::parse(npu::test::read_file(out + "/verify.json"));
  ASSERT_EQ(v.at("rows").size(), builtin_strategy_names().size());
  for (const auto& row : v.at("rows")) EXPECT_TRUE(row.at("pass").get<bool>()) << file << " " << row.dump();
}

TEST(ConverterCases, EveryStrategyComputesTheReferenceInFp32AndInt8) {
  // The rewrites are exact in value (a bias) or change fp32 rounding only (the combined
  // affine): every strategy still matches the reference, which ONNX Runtime checks against
  // the file as written (test_reference_ort.cpp, SharedCases/converter_*).
  for (const char* file : {"conv_scalar_affine_relu.onnx", "conv_separate_bias_add_bn.onnx"}) {
    NPU_REQUIRE_SHARED_OR_SKIP(kConverter + file);
    expect_verified(file, npu::test::fp32_config(npu::test::fresh_dir("converter_fp32")));
    expect_verified(file, "configs/edge-npu-ddr4.yaml");
  }
}

}  // namespace
}  // namespace npu::compiler
