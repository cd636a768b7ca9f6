// What real exports contain (../shared/models/cases, one-op reproductions; see its README):
// shape arithmetic folded to constants, Identity-deduplicated weights, broadcasting SE gates,
// LayerNorm, GELU pieces, 3-D MatMul, bilinear Resize, Transpose, Pad, ReduceMean -- each
// compiled on the edge preset (int8: 1 byte per activation/weight element, 4 bytes per
// bias/param element) with every node on the NPU and the DDR bytes derived by hand.
// Also: NPU/host partitioning (the NPU resumes after a host op), --npu-only, and constant
// folding on hand-built graphs. Tests that need ../shared/models skip with a message.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/transforms/canonicalize/constant_folding.hpp"
#include "npu/compiler/frontend/model_loader.hpp"
#include "npu/compiler/transforms/canonicalize/recognise_activations.hpp"
#include "npu/compiler/transforms/canonicalize/shape_inference.hpp"
#include "npu/isa/check/program_check.hpp"
#include "test_compile_graphs.hpp"
#include "shared_data.hpp"

namespace npu::compiler {
namespace {

using testing::edge_like_hw;
using testing::GraphBuilder;

const std::string kCases = npu::test::shared_path("models/cases/");

#define CASE_OR_SKIP(graph, file)        \
  NPU_REQUIRE_SHARED_OR_SKIP(kCases + file); \
  const Graph graph = load_model(kCases + file)

// Planned DDR bytes (LOAD, STORE) per layer name, summed from the program.
std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> planned(const CompileResult& r) {
  std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> m;
  for (const auto& l : r.report.layers) m[l.layer] = {l.planned_read_bytes, l.planned_write_bytes};
  return m;
}

CompileResult compile_npu_only(const Graph& g, const std::string& strategy = "none") {
  CompileOptions o;
  o.npu_only = true;  // any host placement fails the test with the list of nodes
  CompileResult r = compile(g, edge_like_hw(), builtin_strategy(strategy), o);
  const auto issues = isa::check_program(r.program, edge_like_hw());
  EXPECT_TRUE(issues.empty()) << (issues.empty() ? "" : issues[0].message);
  return r;
}

TEST(RealExportCases, ShapeArithmeticFoldsAndReshapeIsAView) {
  // Conv [1,8,8,8] -> Shape -> Gather(0) -> Unsqueeze -> Concat(-1) -> Reshape: the target
  // shape [1, -1] is a constant once the input is static; Reshape is then a view.
  CASE_OR_SKIP(g, "op_shape_gather_reshape.onnx");
  for (const Node& n : g.nodes) EXPECT_TRUE(n.op_type == "Conv" || n.op_type == "Reshape") << n.op_type;
  EXPECT_EQ(g.tensor("y").shape, (std::vector<std::int64_t>{1, 512}));
  const CompileResult r = compile_npu_only(g);
  EXPECT_EQ(r.report.layers.size(), 1u);  // only the Conv emits code
}

TEST(RealExportCases, IdentityDeduplicatedBiasGivesTheSameProgramAsThePlainModel) {
  // The second Conv's bias comes through Identity(b0). Folded, the graph is Conv-Relu-Conv-
  // Relu with constant weights everywhere: both Convs on the NPU, none on the host.
  CASE_OR_SKIP(g, "identity_const_bias.onnx");
  const CompileResult r = compile_npu_only(g, "conv-act");
  EXPECT_EQ(r.host_nodes, 0);
  int convs = 0;
  for (const auto& l : r.report.layers) convs += l.kind == "conv";
  EXPECT_EQ(convs, 2);
  // MACs: 2 convs x (8 x 8 x 8 outputs) x (8 x 3 x 3) = 2 x 36,864 = 73,728.
  EXPECT_EQ(r.report.total().macs, 73728u);
}

TEST(RealExportCases, SqueezeExcitationGateIsABroadcastMul) {
  // Mul c [1,8,8,8] by s [1,8,1,1]: reads c (512 B) and s (8 B) once, writes 512 B.
  CASE_OR_SKIP(g, "se_broadcast_mul.onnx");
  const CompileResult r = compile_npu_only(g);
  bool found = false;
  for (const auto& L : r.lowered.layers)
    if (L.op_type == "Mul") {
      found = true;
      EXPECT_EQ(L.kind, LayerKind::Eltwise);
      EXPECT_EQ(L.b_elems, 8u);   // C
      EXPECT_EQ(L.b_inner, 64u);  // H x W
    }
  EXPECT_TRUE(found);
  const auto p = planned(r);
  const std::string mul = r.lowered.layers.back().name;
  EXPECT_EQ(p.at(mul).first, 512u + 8u);
  EXPECT_EQ(p.at(mul).second, 512u);
}

TEST(RealExportCases, SubDivInputNormalisationIsPerChannel) {
  // (x - mean[3,1,1]) / std[3,1,1] on [1,3,8,8]: two broadcast ELTWISE layers, b = 3
  // channels of 64 elements. Each reads 192 + 3 B and writes 192 B.
  CASE_OR_SKIP(g, "op_sub_div_normalize.onnx");
  const CompileResult r = compile_npu_only(g);
  ASSERT_EQ(r.lowered.layers.size(), 2u);
  for (const auto& L : r.lowered.layers) {
    EXPECT_EQ(L.kind, LayerKind::Eltwise);
    EXPECT_EQ(L.b_elems, 3u);
    EXPECT_EQ(L.b_inner, 64u);
  }
  EXPECT_EQ(r.lowered.layers[0].eltwise, isa::EltwiseOp::Sub);
  EXPECT_EQ(r.lowered.layers[1].eltwise, isa::EltwiseOp::Div);
  for (const auto& [layer, rw] : planned(r)) {
    EXPECT_EQ(rw.first, 192u + 3u) << layer;
    EXPECT_EQ(rw.second, 192u) << layer;
  }
}

TEST(RealExportCases, LayerNormalizationRunsOnTheVectorUnit) {
  // [1,16,32] over the last axis: 16 rows of 32; reads x (512 B) and gamma/beta (2 x 32 x
  // 4 B = 256 B), writes 512 B.
  CASE_OR_SKIP(g, "op_layernormalization_op17.onnx");
  const CompileResult r = compile_npu_only(g);
  ASSERT_EQ(r.lowered.layers.size(), 1u);
  EXPECT_EQ(r.lowered.layers[0].act, isa::ActOp::LayerNorm);
  EXPECT_EQ(r.lowered.layers[0].channels, 16);
  const auto p = planned(r).begin()->second;
  EXPECT_EQ(p.first, 512u + 256u);
  EXPECT_EQ(p.second, 512u);
}

TEST(RealExportCases, ErfGeluIsRecognisedAsOneActivation) {
  // Div(x, sqrt2) -> Erf -> Add(1) -> Mul(x) -> Mul(0.5): one GELU node, one ACT layer that
  // reads x once (512 B) and writes y once (512 B), instead of five passes.
  CASE_OR_SKIP(g, "op_erf_gelu.onnx");
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].op_type, "Gelu");
  const CompileResult r = compile_npu_only(g);
  ASSERT_EQ(r.lowered.layers.size(), 1u);
  EXPECT_EQ(r.lowered.layers[0].act, isa::ActOp::Gelu);
  const auto p = planned(r).begin()->second;
  EXPECT_EQ(p.first, 512u);
  EXPECT_EQ(p.second, 512u);
}

TEST(RealExportCases, MatMulWithAConstantMatrixIsOneGemmOverTheSequence) {
  // [1,16,32] x [32,64]: M = 16, K = 32, N = 64 -> 32,768 MACs.
  CASE_OR_SKIP(g, "matmul_3d_const_b.onnx");
  const CompileResult r = compile_npu_only(g);
  ASSERT_EQ(r.lowered.layers.size(), 1u);
  EXPECT_EQ(r.lowered.layers[0].kind, LayerKind::Gemm);
  EXPECT_EQ(r.report.total().macs, 16u * 32u * 64u);
}

TEST(RealExportCases, MatMulOfTwoActivationsRunsOnTheMacArray) {
  // x [16,16] x relu(x) [16,16]: 16^3 = 4,096 MACs on the array, B read from DDR.
  CASE_OR_SKIP(g, "matmul_two_activations.onnx");
  const CompileResult r = compile_npu_only(g);
  EXPECT_EQ(r.report.total().macs, 4096u);
}

TEST(RealExportCases, ReduceMeanOverHwIsAGlobalPool) {
  CASE_OR_SKIP(g, "op_reducemean.onnx");
  const CompileResult r = compile_npu_only(g);
  ASSERT_EQ(r.lowered.layers.size(), 2u);
  EXPECT_EQ(r.lowered.layers[1].kind, LayerKind::Pool);
  EXPECT_EQ(r.lowered.layers[1].pool, isa::PoolOp::GlobalAvg);
  // Reads the conv output once (8 x 8 x 8 = 512 B), writes 8 means.
  const auto p = planned(r).at(r.lowered.layers[1].name);
  EXPECT_EQ(p.first, 512u);
  EXPECT_EQ(p.second, 8u);
}

TEST(RealExportCases, AllZeroPadIsRemoved) {
  CASE_OR_SKIP(g, "op_pad_zero.onnx");
  const CompileResult r = compile_npu_only(g);
  for (const auto& L : r.lowered.layers) EXPECT_NE(L.op_type, "Pad");
  EXPECT_EQ(r.lowered.layers.size(), 2u);  // Conv, AveragePool
}

TEST(RealExportCases, PadBeforeAveragePoolMergesIntoThePoolsPadding) {
  // Pad(1 on H and W) -> AveragePool 3x3 s1: the pool takes pads [1,1,1,1] with
  // count_include_pad=1 (the zeros were counted), the padded tensor never exists.
  CASE_OR_SKIP(g, "op_pad_avgpool.onnx");
  ASSERT_EQ(g.nodes.size(), 2u);
  const Node& pool = g.nodes[1];
  EXPECT_EQ(pool.op_type, "AveragePool");
  EXPECT_EQ(pool.attr_ints("pads"), (std::vector<std::int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(pool.attr_int("count_include_pad", 0), 1);
  const CompileResult r = compile_npu_only(g);
  ASSERT_EQ(r.lowered.layers.size(), 2u);
  // The pool reads the conv output once (8 x 8 x 8 = 512 B) and writes 512 B.
  const auto p = planned(r).at(r.lowered.layers[1].name);
  EXPECT_EQ(p.first, 512u);
  EXPECT_EQ(p.second, 512u);
}

TEST(RealExportCases, BilinearResizeIsTheInt8BlendOnAnInt8Config) {
  // [1,8,8,8] -> [1,8,16,16] on an int8 config (the float model timed as the int8 program the
  // quantised one runs, codegen/resize_linear_int8.cpp): each of the 16 output rows reads its
  // two input rows of 8 planes x 8 B (16 x 2 x 64 = 2,048 B) plus the 4 B weight of each of the
  // 16 output rows and 16 columns (128 B): 2,176 B read; 8 x 16 x 16 = 2,048 B written.
  CASE_OR_SKIP(g, "resize_bilinear.onnx");
  const CompileResult r = compile_npu_only(g);
  const LayerSpec& L = r.lowered.layers.back();
  EXPECT_EQ(L.kind, LayerKind::Layout);
  EXPECT_TRUE(L.linear_resize());
  const auto p = planned(r).at(L.name);
  EXPECT_EQ(p.first, 2176u);
  EXPECT_EQ(p.second, 2048u);
}

TEST(RealExportCases, TransposesRunOnTheNpuAndTheConvsAfterThemToo) {
  // Conv -> Transpose(0,2,3,1) -> Transpose(0,3,1,2) -> Conv -> Relu: was "everything after the
  // first Transpose on the host", then one layout layer moving the first Conv's output through
  // both permutations. The perms are inverse (0,2,3,1 then 0,3,1,2 compose to 0,1,2,3), so
  // sink-layout-transposes cancels the pair on import: both Convs on the NPU, the second reading
  // the first's output, and no layout layer at all.
  CASE_OR_SKIP(g, "transpose_then_convs_host.onnx");
  for (const Node& n : g.nodes) EXPECT_NE(n.op_type, "Transpose") << n.name;
  const CompileResult r = compile_npu_only(g, "conv-act");
  std::vector<const LayerSpec*> convs;
  for (const auto& L : r.lowered.layers) {
    EXPECT_NE(L.kind, LayerKind::Layout) << L.name;
    if (L.kind == LayerKind::Conv) convs.push_back(&L);
  }
  ASSERT_EQ(convs.size(), 2u);
  EXPECT_EQ(convs[1]->inputs.at(0), convs[0]->output);
}

TEST(RealExportCases, UnsqueezeIsAView) {
  // Flatten + Unsqueeze of the input: both views, so the output is the input's 512 bytes;
  // no layer, no instruction, no DDR traffic, and a warning that says so.
  CASE_OR_SKIP(g, "op_unsqueeze.onnx");
  const CompileResult r = compile_npu_only(g);
  EXPECT_TRUE(r.lowered.layers.empty());
  EXPECT_EQ(r.lowered.aliases.size(), 2u);
  EXPECT_TRUE(r.program.instructions.empty());
  EXPECT_EQ(r.report.total().planned_bytes(), 0u);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("every node is a view of its input (2 node(s))"), std::string::npos) << r.warnings[0];
}

// ---- partitioning: the NPU resumes after a host op --------------------------------------

void constant_ints(GraphBuilder& b, const std::string& name, std::vector<std::int64_t> shape,
                   std::vector<std::int64_t> data) {
  Tensor& t = b.add_tensor(name, std::move(shape), true);
  t.type = ElemType::Int64;
  t.int_data = std::move(data);
}

void op(GraphBuilder& b, const std::string& type, const std::string& name, std::vector<std::string> ins,
        std::vector<std::string> outs, std::map<std::string, AttrValue> attrs = {}) {
  for (const auto& o : outs) {
    Tensor& t = b.g.tensors[o];
    t.name = o;
    t.shape = {-1};
  }
  b.node(name, type, std::move(ins), std::move(outs)).attrs = std::move(attrs);
}

// Conv -> LpNormalization (no NPU lowering) -> Conv: the second Conv stays on the NPU and
// reads the host's result from DDR.
Graph conv_host_conv() {
  GraphBuilder b;
  b.input("x", {1, 8, 8, 8});
  const std::string c0 = b.conv("c0", "x", 8, 3, 1, 1);
  b.add_tensor("h", {1, 8, 8, 8});
  b.node("host_op", "LpNormalization", {c0}, {"h"});
  b.output(b.conv("c1", "h", 8, 3, 1, 1));
  return b.g;
}

TEST(Partitioning, NpuResumesAfterAHostNode) {
  const Graph g = conv_host_conv();
  const CompileResult r = compile(g, edge_like_hw(), builtin_strategy("none"));
  ASSERT_EQ(r.lowered.layers.size(), 3u);
  EXPECT_EQ(r.lowered.layers[0].kind, LayerKind::Conv);
  EXPECT_EQ(r.lowered.layers[1].kind, LayerKind::Host);
  EXPECT_EQ(r.lowered.layers[2].kind, LayerKind::Conv);
  EXPECT_EQ(r.host_nodes, 1);
  // The host reads c0 and writes h: 512 B each way (int8).
  EXPECT_EQ(r.lowered.layers[1].host_rd_bytes, 512u);
  EXPECT_EQ(r.lowered.layers[1].host_wr_bytes, 512u);
  // MACs: both convs on the NPU, 2 x 36,864.
  EXPECT_EQ(r.npu_macs, 73728u);
  EXPECT_EQ(r.host_macs, 0u);
  int hosts = 0;
  for (const auto& ins : r.program.instructions) hosts += ins.op == isa::Opcode::Host;
  EXPECT_EQ(hosts, 1);
  EXPECT_TRUE(isa::check_program(r.program, edge_like_hw()).empty());
}

TEST(Partitioning, NpuOnlyListsEveryHostNode) {
  const Graph g = conv_host_conv();
  CompileOptions o;
  o.npu_only = true;
  try {
    compile(g, edge_like_hw(), builtin_strategy("none"), o);
    FAIL() << "expected --npu-only to refuse the host node";
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("--npu-only"), std::string::npos) << m;
    EXPECT_NE(m.find("LpNormalization 'host_op'"), std::string::npos) << m;
  }
}

// ---- constant folding -----------------------------------------------------------------

TEST(ConstantFolding, ShapeGatherUnsqueezeConcatBecomesAConstant) {
  GraphBuilder b;
  b.input("x", {1, 4, 6, 6});
  constant_ints(b, "i0", {}, {0});
  constant_ints(b, "ax", {1}, {0});
  constant_ints(b, "m1", {1}, {-1});
  op(b, "Shape", "shape", {"x"}, {"s"});
  op(b, "Gather", "gather", {"s", "i0"}, {"n"});
  op(b, "Unsqueeze", "unsq", {"n", "ax"}, {"n1"});
  op(b, "Concat", "cat", {"n1", "m1"}, {"shp"}, {{"axis", std::int64_t{0}}});
  op(b, "Reshape", "reshape", {"x", "shp"}, {"y"});
  b.output("y");
  Graph g = b.g;
  infer_shapes(g, "test");
  ASSERT_EQ(g.nodes.size(), 1u);  // only the Reshape is left
  EXPECT_EQ(g.tensor("shp").int_data, (std::vector<std::int64_t>{1, -1}));
  EXPECT_EQ(g.tensor("y").shape, (std::vector<std::int64_t>{1, 144}));  // 4 x 6 x 6
}

TEST(ConstantFolding, SliceRangeCastAndIntegerDivision) {
  GraphBuilder b;
  b.input("x", {1, 3, 10, 10});
  constant_ints(b, "start", {}, {2});
  constant_ints(b, "limit", {}, {11});
  constant_ints(b, "delta", {}, {3});
  constant_ints(b, "seven", {}, {-7});
  constant_ints(b, "two", {}, {2});
  op(b, "Range", "range", {"start", "limit", "delta"}, {"r"});  // 2, 5, 8
  op(b, "Div", "div", {"seven", "two"}, {"q"});                 // -3 (truncation, as C)
  op(b, "Cast", "cast", {"r"}, {"rf"}, {{"to", std::int64_t{1}}});
  op(b, "Relu", "relu", {"x"}, {"y"});
  b.output("y");
  b.output("rf");
  b.output("q");
  Graph g = b.g;
  infer_shapes(g, "test");
  // r = Range(2, 11, 3) = [2, 5, 8], read only by the Cast: folded and then dropped.
  EXPECT_FALSE(g.has_tensor("r"));
  EXPECT_EQ(g.tensor("q").int_data, (std::vector<std::int64_t>{-3}));
  EXPECT_EQ(g.tensor("rf").float_data, (std::vector<float>{2.f, 5.f, 8.f}));
  EXPECT_EQ(g.nodes.size(), 1u);
}

TEST(ConstantFolding, GatherOutOfRangeNamesTheNode) {
  GraphBuilder b;
  b.input("x", {1, 2, 3, 3});
  constant_ints(b, "i9", {}, {9});
  op(b, "Shape", "shape", {"x"}, {"s"});
  op(b, "Gather", "bad_gather", {"s", "i9"}, {"n"});
  op(b, "Relu", "relu", {"x"}, {"y"});
  b.output("y");
  b.output("n");
  Graph g = b.g;
  try {
    infer_shapes(g, "m.onnx");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("'bad_gather' (Gather): Gather index 9 out of range [0, 4)"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace npu::compiler

namespace npu::compiler {
namespace {

using testing::edge_like_hw;
using testing::GraphBuilder;

// nn.Linear on a sequence + GELU as torch exports it at opset 13: MatMul [1,16,32] x W
// [32,64], Add(bias[64]), then Div/Erf/Add/Mul/Mul.
Graph linear_gelu() {
  GraphBuilder b("linear_gelu");
  const std::string x = b.input("x", {1, 16, 32});
  const std::string w = b.constant("w", {32, 64}, -0.1f, 0.1f);
  const std::string bias = b.constant("bias", {64}, -0.1f, 0.1f);
  auto t = [&](const std::string& name) { b.add_tensor(name, {1, 16, 64}); return name; };
  b.node("mm", "MatMul", {x, w}, {t("mm.out")});
  b.node("badd", "Add", {"mm.out", bias}, {t("h")});
  b.node("div", "Div", {"h", b.scalar("sqrt2", 1.4142135f)}, {t("d")});
  b.node("erf", "Erf", {"d"}, {t("e")});
  b.node("one", "Add", {"e", b.scalar("c1", 1.0f)}, {t("a")});
  b.node("mx", "Mul", {"h", "a"}, {t("m")});
  b.node("half", "Mul", {"m", b.scalar("c05", 0.5f)}, {t("y")});
  b.output("y");
  recognise_activations(b.g);
  return b.g;
}

TEST(FuseBias, LinearPlusGeluIsOneGemmWithBiasAndGeluEpilogue) {
  const Graph g = linear_gelu();
  ASSERT_EQ(g.nodes.size(), 3u);  // MatMul, Add, Gelu
  const CompileResult none = compile(g, edge_like_hw(), builtin_strategy("none"));
  const CompileResult fused = compile(g, edge_like_hw(), builtin_strategy("conv-act"));
  ASSERT_EQ(fused.lowered.layers.size(), 1u);
  const LayerSpec& L = fused.lowered.layers[0];
  EXPECT_EQ(L.kind, LayerKind::Gemm);
  EXPECT_EQ(L.bias, "bias");
  EXPECT_EQ(L.act, isa::ActOp::Gelu);
  const LayerReport t = fused.report.total();
  // Compulsory: x 16x32 = 512 B, W 32x64 = 2,048 B, bias 64 x 4 B = 256 B; y 16x64 = 1,024 B.
  EXPECT_EQ(t.compulsory_read_bytes, 512u + 2048u + 256u);
  EXPECT_EQ(t.compulsory_write_bytes, 1024u);
  // Unfused: the MatMul output and the Add output each go to DDR and come back once more:
  // 2 x 1,024 B written and read, plus the bias read as a 64-element int8 operand (64 B)
  // instead of 256 B of int32 params: writes 3 x 1,024 B.
  EXPECT_EQ(none.report.total().compulsory_write_bytes, 3u * 1024u);
}

TEST(FuseBias, DeclinedWhenTheMatMulOutputHasAnotherReader) {
  Graph g = linear_gelu();
  g.outputs.push_back("mm.out");
  const CompileResult r = compile(g, edge_like_hw(), builtin_strategy("conv-act"));
  bool declined = false;
  for (const auto& d : r.decisions)
    if (d.pass == "fuse-bias") declined = d.outcome == DecisionOutcome::Declined && d.reason == "MatMul output is a graph output";
  EXPECT_TRUE(declined);
}

}  // namespace
}  // namespace npu::compiler

namespace npu::compiler {
namespace {

TEST(ConvTranspose, ZeroInsertionThenAStrideOneConv) {
  // x [1,8,8,8], W [8,4,3,3], stride 2, pads 1, output_padding 1 -> y [1,4,16,16]
  // (ONNX: H_out = 2*(8-1) + 1 + 2 + 1 - 2 = 16). Zero insertion: (8-1)*2+1 = 15 rows and
  // columns; the conv pads 3-1-1 = 1 at the start and 3-1-1+1 = 2 at the end: 15+1+2-2 = 16.
  testing::GraphBuilder b("deconv");
  b.input("x", {1, 8, 8, 8});
  b.constant("w", {8, 4, 3, 3}, -0.1f, 0.1f);
  b.add_tensor("y", {1, 4, 16, 16});
  Node& n = b.node("up", "ConvTranspose", {"x", "w"}, {"y"});
  n.attrs["strides"] = std::vector<std::int64_t>{2, 2};
  n.attrs["pads"] = std::vector<std::int64_t>{1, 1, 1, 1};
  n.attrs["output_padding"] = std::vector<std::int64_t>{1, 1};
  b.output("y");
  CompileOptions o;
  o.npu_only = true;
  const CompileResult r = compile(b.g, testing::edge_like_hw(), builtin_strategy("none"), o);
  ASSERT_EQ(r.lowered.layers.size(), 2u);
  const LayerSpec& z = r.lowered.layers[0];
  const LayerSpec& c = r.lowered.layers[1];
  EXPECT_EQ(z.kind, LayerKind::Layout);
  EXPECT_EQ(z.in_elems, 512u);       // 8 x 8 x 8
  EXPECT_EQ(z.elems, 8u * 15 * 15);  // 1,800
  EXPECT_EQ(c.kind, LayerKind::Conv);
  EXPECT_EQ(c.geom.h_in, 15);
  EXPECT_EQ(c.geom.pad_top, 1);
  EXPECT_EQ(c.geom.pad_bottom, 2);
  // Executed MACs 4 x 16 x 16 x 8 x 3 x 3 = 73,728 (4x the 18,432 useful ones: s^2).
  EXPECT_EQ(c.macs, 73728u);
  EXPECT_TRUE(isa::check_program(r.program, testing::edge_like_hw()).empty());
}

}  // namespace
}  // namespace npu::compiler

namespace npu::compiler {
namespace {

TEST(FuseSeGate, GateMulMovesIntoTheConsumingConv) {
  // x -> conv0 -> c [1,8,8,8]; s = Sigmoid(GlobalAveragePool(c)) [1,8,1,1]; m = c * s;
  // y = conv1(m). Under `residual` the Mul disappears and conv1 scales its input channels by
  // s: m (8 x 8 x 8 = 512 B) is neither written nor read: 512 B fewer writes, 512 B fewer
  // reads (the Mul's reads of c and s become conv1's).
  testing::GraphBuilder b("se");
  const std::string c = b.conv("conv0", b.input("x", {1, 8, 8, 8}), 8, 3, 1, 1);
  b.add_tensor("p", {1, 8, 1, 1});
  b.node("gap", "GlobalAveragePool", {c}, {"p"});
  const std::string s = b.unary("sig", "Sigmoid", "p");
  b.add_tensor("m", {1, 8, 8, 8});
  b.node("gate", "Mul", {c, s}, {"m"});
  b.output(b.conv("conv1", "m", 8, 1));
  const CompileResult none = compile(b.g, testing::edge_like_hw(), builtin_strategy("none"));
  const CompileResult fused = compile(b.g, testing::edge_like_hw(), builtin_strategy("residual"));
  bool scaled = false;
  for (const auto& L : fused.lowered.layers) {
    EXPECT_NE(L.op_type, "Mul");
    if (L.name == "conv1") scaled = L.in_scale == s;
  }
  EXPECT_TRUE(scaled);
  const LayerReport a = none.report.total(), f = fused.report.total();
  EXPECT_EQ(a.planned_write_bytes - f.planned_write_bytes, 512u);
  EXPECT_EQ(a.planned_read_bytes - f.planned_read_bytes, 512u);
  EXPECT_TRUE(isa::check_program(fused.program, testing::edge_like_hw()).empty());
}

TEST(FuseAddLayerNorm, ResidualAddRunsInsideTheLayerNorm) {
  // s = Relu(x) + Sigmoid(x) [1,16,32] -> LayerNormalization: fused, s (512 B) is neither
  // written nor read; the LayerNorm reads both summands instead.
  testing::GraphBuilder b("addln");
  const std::string x = b.input("x", {1, 16, 32});
  const std::string r = b.unary("relu", "Relu", x);
  const std::string g = b.unary("sig", "Sigmoid", x);
  const std::string s = b.binary("add", "Add", r, g);
  b.add_tensor("y", {1, 16, 32});
  Node& ln = b.node("ln", "LayerNormalization",
                    {s, b.constant("gamma", {32}, 0.5f, 1.5f), b.constant("beta", {32}, -0.1f, 0.1f)}, {"y"});
  ln.attrs["axis"] = std::int64_t{-1};
  b.output("y");
  const CompileResult none = compile(b.g, testing::edge_like_hw(), builtin_strategy("none"));
  const CompileResult fused = compile(b.g, testing::edge_like_hw(), builtin_strategy("residual"));
  const LayerReport a = none.report.total(), f = fused.report.total();
  EXPECT_EQ(a.planned_write_bytes - f.planned_write_bytes, 512u);
  EXPECT_EQ(a.planned_read_bytes - f.planned_read_bytes, 512u);
  EXPECT_EQ(fused.lowered.layers.back().residual, g);
  EXPECT_TRUE(isa::check_program(fused.program, testing::edge_like_hw()).empty());
}

}  // namespace
}  // namespace npu::compiler

namespace npu::compiler {
namespace {

TEST(RecogniseLayerNorm, TransformerEncoderExportHasTwoLayerNormsAndFusesTheirAdds) {
  // nn.TransformerEncoderLayer (post-norm) exported at opset 13 writes each LayerNorm as
  // ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add: recognised as norm1 and norm2,
  // each fed by a residual Add that fuse-add-layernorm moves into it.
  const std::string f = npu::test::shared_path("models/torchvision/transformer_enc-bn-op13.onnx");
  NPU_REQUIRE_SHARED_OR_SKIP(f);
  const Graph g = load_model(f);
  int lns = 0, reduce = 0;
  for (const Node& n : g.nodes) {
    lns += n.op_type == "LayerNormalization";
    reduce += n.op_type == "ReduceMean";
  }
  EXPECT_EQ(lns, 2);
  EXPECT_EQ(reduce, 0);
  const CompileResult r = compile(g, testing::edge_like_hw(), builtin_strategy("residual"));
  int fused = 0;
  for (const auto& d : r.decisions) fused += d.pass == "fuse-add-layernorm" && d.outcome == DecisionOutcome::Applied;
  EXPECT_EQ(fused, 2);
}

}  // namespace
}  // namespace npu::compiler

namespace npu::compiler {
namespace {

TEST(LayoutOps, ScatterElementsReadsDataIndicesAndUpdatesOnceInsideTheirTensors) {
  // data [1,8,4] (32 elements), indices and updates [1,2,4] (8 each): reads 32 + 8 + 8 = 48
  // elements (1 B each in the int8 program), writes the 32 of the output.
  testing::GraphBuilder b("scatter");
  const std::string data = b.unary("relu", "Relu", b.input("x", {1, 8, 4}));
  b.add_tensor("idx", {1, 2, 4});
  b.g.tensors["idx"].type = ElemType::Int64;
  b.g.inputs.push_back("idx");
  const std::string upd = b.unary("sig", "Sigmoid", b.input("u", {1, 2, 4}));
  b.add_tensor("y", {1, 8, 4});
  b.node("scatter", "ScatterElements", {data, "idx", upd}, {"y"}).attrs["axis"] = std::int64_t{1};
  b.output("y");
  const CompileResult r = compile(b.g, testing::edge_like_hw(), builtin_strategy("none"));
  const auto issues = isa::check_program(r.program, testing::edge_like_hw());
  EXPECT_TRUE(issues.empty()) << issues[0].message;
  const auto p = planned(r).at("scatter");
  EXPECT_EQ(p.first, 48u);
  EXPECT_EQ(p.second, 32u);
}

}  // namespace
}  // namespace npu::compiler

namespace npu::compiler {
namespace {

TEST(Legality, SiluWhoseSigmoidIsAGraphOutputIsNotFusedAndTheSigmoidIsStored) {
  const std::string f = kCases + "legality/silu_sig_also_output.onnx";
  NPU_REQUIRE_SHARED_OR_SKIP(f);
  const CompileResult r = compile(load_model(f), testing::edge_like_hw(), builtin_strategy("residual"));
  bool declined = false;
  for (const auto& d : r.decisions)
    declined = declined || (d.pass == "fuse-activation" && d.outcome == DecisionOutcome::Declined &&
                            d.reason == "Sigmoid output s is a graph output");
  EXPECT_TRUE(declined);
  bool stored = false;
  for (const auto& ins : r.program.instructions) stored = stored || (ins.op == isa::Opcode::Store && ins.tensor == "s");
  EXPECT_TRUE(stored);
}

TEST(InputShape, AnInputGivenTwiceIsAnError) {
  LoadOptions o;
  add_input_shape(o, "input=1x3x32x32");
  EXPECT_THROW(add_input_shape(o, "input=1x3x64x64"), ConfigError);
}

}  // namespace
}  // namespace npu::compiler

namespace npu::compiler {
namespace {

TEST(Legality, ClipWithMinAboveMaxMakesEveryValueMax) {
  // ONNX Clip: min 5 > max 1 -> every output is 1. Lowered as clip(1, 1), fused or not, and
  // the program passes the checker (it used to be rejected after compiling).
  const std::string f = kCases + "legality/clip_5_1.onnx";
  NPU_REQUIRE_SHARED_OR_SKIP(f);
  for (const char* s : {"none", "conv-act"}) {
    const CompileResult r = compile(load_model(f), testing::edge_like_hw(), builtin_strategy(s));
    const LayerSpec& L = r.lowered.layers.back();
    EXPECT_EQ(L.act, isa::ActOp::Clip) << s;
    EXPECT_FLOAT_EQ(L.act_alpha, 1.0f) << s;
    EXPECT_FLOAT_EQ(L.act_beta, 1.0f) << s;
    EXPECT_TRUE(isa::check_program(r.program, testing::edge_like_hw()).empty()) << s;
  }
}

TEST(Legality, ConvWithANonStandardActivationAttributeIsRejected) {
  const std::string f = kCases + "legality/conv_with_activation_attr.onnx";
  NPU_REQUIRE_SHARED_OR_SKIP(f);
  try {
    load_model(f);
    FAIL() << "expected the 'activation' attribute to be rejected";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("node #0 'conv' (Conv): attribute 'activation'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace npu::compiler
