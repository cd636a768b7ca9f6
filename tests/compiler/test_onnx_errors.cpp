// Bad ONNX input: every failure is an npu::ConfigError "FILE: error: REASON; FIX" (the
// tool maps it to exit status 1), never a crash. Files are made in the tests.
#include <gtest/gtest.h>

#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/frontend/model_loader.hpp"
#include "npu/compiler/frontend/onnx/onnx_import.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "test_compile_graphs.hpp"
#include "test_onnx_util.hpp"

namespace npu::compiler {
namespace {

using npu::test::OnnxModel;

/// The ConfigError message load_model throws for `path`, or "" if it does not throw.
std::string load_error(const std::string& path, const LoadOptions& opt = {}) {
  try {
    load_model(path, opt);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE((haystack).find(needle), std::string::npos) << "message: " << (haystack)

/// A small valid model: input [1,3,8,8] -> Conv(4 out, 3x3) -> Relu.
OnnxModel small_model() {
  OnnxModel m(13);
  m.input("input", {1, 3, 8, 8});
  m.weight("conv.weight", {4, 3, 3, 3});
  m.node("Conv", "/conv/Conv", {"input", "conv.weight"}, {"c"});
  m.node("Relu", "/relu/Relu", {"c"}, {"output"});
  m.output("output");
  return m;
}

TEST(OnnxErrors, SmallModelLoads) {
  Graph g = load_model(small_model().write("small.onnx"));
  EXPECT_EQ(g.tensor("output").shape, (std::vector<std::int64_t>{1, 4, 6, 6}));
}

TEST(OnnxErrors, AnExistingFileWithoutTheOnnxSuffixIsAPath) {
  const std::string path = small_model().write("small.ONNX");
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(std::filesystem::path(path).parent_path());
  const std::string msg = load_error("small.ONNX");
  std::filesystem::current_path(cwd);
  EXPECT_EQ(msg, "");  // loaded as a file, not looked up in the zoo
}

TEST(OnnxErrors, MissingFile) {
  const std::string msg = load_error("/nonexistent/dir/model.onnx");
  EXPECT_CONTAINS(msg, "/nonexistent/dir/model.onnx: error: no such file");
  EXPECT_CONTAINS(msg, "check the path");
}

TEST(OnnxErrors, DirectoryInsteadOfFile) {
  const std::string dir = std::filesystem::path(small_model().write("x.onnx")).parent_path().string() + "/";
  EXPECT_CONTAINS(load_error(dir), "not a regular file");
}

TEST(OnnxErrors, EmptyFile) {
  const std::string path = OnnxModel::write_bytes("empty.onnx", "");
  const std::string msg = load_error(path);
  EXPECT_CONTAINS(msg, path + ": error: the file is empty (0 bytes)");
  EXPECT_CONTAINS(msg, "re-export");
}

TEST(OnnxErrors, TruncatedFileFailsToParse) {
  // Cut inside the weight's raw_data: a length-delimited field that runs past the end is a
  // protobuf parse error.
  const std::string bytes = small_model().bytes();
  const std::string path = OnnxModel::write_bytes("truncated.onnx", bytes.substr(0, bytes.size() / 2));
  const std::string msg = load_error(path);
  EXPECT_CONTAINS(msg, path + ": error: cannot parse the ONNX protobuf");
  EXPECT_CONTAINS(msg, "truncated or corrupt");
  EXPECT_CONTAINS(msg, "re-export or re-download");
}

TEST(OnnxErrors, FileCutBeforeItsOpsetImportSaysItMayBeTruncated) {
  // ModelProto serialises its fields in field-number order: graph (7), then opset_import (8),
  // last here. small_model()'s opset_import {domain "", version 13} is the bytes 42 04 0a 00 10
  // 0d: tag (8 << 3) | 2 = 0x42, length 4; domain tag (1 << 3) | 2 = 0x0a, length 0; version tag
  // (2 << 3) | 0 = 0x10, 13. Without them the file still parses, as a model importing no opset
  // (opset 1 by the IR spec): the message must say the file may be cut short, not only "opset 1".
  const std::string bytes = small_model().bytes();
  const std::string tail("\x42\x04\x0a\x00\x10\x0d", 6);
  ASSERT_EQ(bytes.substr(bytes.size() - tail.size()), tail);
  const std::string path = OnnxModel::write_bytes("no_opset.onnx", bytes.substr(0, bytes.size() - tail.size()));
  const std::string msg = load_error(path);
  EXPECT_CONTAINS(msg, path + ": error: model imports no ai.onnx opset");
  EXPECT_CONTAINS(msg, "a file cut short loses it: re-export or re-download the model");
}

TEST(OnnxErrors, GarbageFileIsRejected) {
  // 0xFF bytes: field number 31 with wire type 7, which protobuf does not define.
  const std::string path = OnnxModel::write_bytes("garbage.onnx", std::string(64, '\xff'));
  EXPECT_CONTAINS(load_error(path), "cannot parse the ONNX protobuf (64 bytes)");
}

TEST(OnnxErrors, ParsableButNotAModel) {
  // Text parses as a few unknown varint fields ('h' = 0x68 = field 13, varint) but holds no graph.
  const std::string path = OnnxModel::write_bytes("text.onnx", "hello");
  std::string msg = load_error(path);
  if (msg.find("cannot parse") == std::string::npos) {
    EXPECT_CONTAINS(msg, "contains no ONNX graph");
  }
}

TEST(OnnxErrors, UnsupportedOpsAreAllListedWithTheirNodes) {
  // Ops that are not standard ONNX at the model's opset: every one listed, with its nodes.
  OnnxModel m = small_model();
  m.node("NonMaxSuppressionV9", "/post/nms", {"output"}, {"boxes"});
  m.node("Mish", "/act/mish1", {"output"}, {"m1"});
  m.node("Mish", "/act/mish2", {"m1"}, {"m2"});
  m.output("boxes");
  m.output("m2");
  const std::string path = m.write("unsupported.onnx");
  const std::string msg = load_error(path);
  EXPECT_CONTAINS(msg, path + ": error: 2 unsupported op types in 3 nodes: not standard ONNX ops at opset");
  EXPECT_CONTAINS(msg, "Mish (2 nodes): node #3 '/act/mish1' (Mish), node #4 '/act/mish2' (Mish)");
  EXPECT_CONTAINS(msg, "NonMaxSuppressionV9 (1 node): node #2 '/post/nms' (NonMaxSuppressionV9)");
  EXPECT_CONTAINS(msg, "replace them with standard ops or re-export the model");
}

TEST(OnnxErrors, StandardOpWithoutNpuLoweringLoadsAndGoesToTheHost) {
  // NonMaxSuppression is standard ONNX: it imports (ONNX's shape inference gives its output
  // a run-time size) and placement puts it on the host with that reason.
  OnnxModel m = small_model();
  m.input("scores", {1, 1, 4});
  m.node("NonMaxSuppression", "/post/nms", {"output", "scores"}, {"sel"});
  m.output("sel");
  const Graph g = load_model(m.write("nms.onnx"));
  const Node& nms = g.nodes.back();
  EXPECT_EQ(nms.op_type, "NonMaxSuppression");
  EXPECT_TRUE(nms.on_host);
  EXPECT_CONTAINS(nms.host_reason, "size known only at run time");
}

TEST(OnnxErrors, CustomDomainOpIsUnsupported) {
  OnnxModel m = small_model();
  m.node("Relu", "/ms/relu", {"output"}, {"z"}).set_domain("com.microsoft");
  m.output("z");
  EXPECT_CONTAINS(load_error(m.write("domain.onnx")), "com.microsoft::Relu (1 node): node #2 '/ms/relu' (Relu)");
}

TEST(OnnxErrors, DynamicDimensionWithoutValueSaysHowToFix) {
  OnnxModel m(13);
  m.input("images", {-1, 3, 8, 8}, "batch_size");
  m.weight("w", {4, 3, 3, 3});
  m.node("Conv", "c", {"images", "w"}, {"y"});
  m.output("y");
  const std::string path = m.write("dynamic.onnx");
  const std::string msg = load_error(path);
  EXPECT_CONTAINS(msg, path + ": error: graph input 'images' has shape ?x3x8x8");
  EXPECT_CONTAINS(msg, "dynamic dimension 0 ('batch_size')");
  EXPECT_CONTAINS(msg, "re-export the model with a fixed input shape");
  EXPECT_CONTAINS(msg, "--input-shape images=1x3x8x8");
}

TEST(OnnxErrors, InputWithoutAnyShape) {
  OnnxModel m(13);
  auto* vi = m.graph().add_input();
  vi->set_name("x");
  vi->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto_DataType_FLOAT);
  m.node("Relu", "r", {"x"}, {"y"});
  m.output("y");
  const std::string msg = load_error(m.write("noshape.onnx"));
  EXPECT_CONTAINS(msg, "graph input 'x' has no declared shape");
  EXPECT_CONTAINS(msg, "--input-shape x=");
}

TEST(OnnxErrors, ZeroSizeInputDimension) {
  OnnxModel m(13);
  m.input("x", {1, 0, 4});
  m.node("Relu", "r", {"x"}, {"y"});
  m.output("y");
  EXPECT_CONTAINS(load_error(m.write("zero.onnx")), "graph input 'x' has a zero-size dimension 1");
}

TEST(OnnxErrors, OverrideNamingNoInputListsTheInputs) {
  LoadOptions opt;
  opt.input_shapes["image"] = {1, 3, 8, 8};
  const std::string msg = load_error(small_model().write("override.onnx"), opt);
  EXPECT_CONTAINS(msg, "--input-shape names 'image', which is not a graph input");
  EXPECT_CONTAINS(msg, "the inputs are: input 1x3x8x8");
}

TEST(OnnxErrors, OverrideWithTheWrongRank) {
  LoadOptions opt;
  opt.input_shapes["input"] = {1, 3, 8};
  EXPECT_CONTAINS(load_error(small_model().write("rank.onnx"), opt), "has rank 3, the model declares rank 4");
}

TEST(OnnxErrors, ShapeMismatchInANodeNamesIt) {
  OnnxModel m(13);
  m.input("input", {1, 3, 8, 8});
  m.weight("w", {4, 5, 3, 3});  // expects 5 input channels, gets 3
  m.node("Conv", "/features/conv", {"input", "w"}, {"y"});
  m.output("y");
  const std::string path = m.write("mismatch.onnx");
  const std::string msg = load_error(path);
  EXPECT_CONTAINS(msg, path + ": error: node #0 '/features/conv' (Conv)");
  EXPECT_CONTAINS(msg, "input channels 3 of X [1,3,8,8] do not match weight 'w' [4,5,3,3]");
}

TEST(OnnxErrors, OverrideThatBreaksShapesIsReportedAtTheNode) {
  OnnxModel m(13);
  m.input("a", {1, 8});
  m.input("b", {1, 8});
  m.node("Add", "sum", {"a", "b"}, {"y"});
  m.output("y");
  LoadOptions opt;
  opt.input_shapes["a"] = {1, 5};
  EXPECT_CONTAINS(load_error(m.write("override_mismatch.onnx"), opt),
                  "node #0 'sum' (Add): inputs [1,5] and [1,8] ('b') cannot be broadcast");
}

TEST(OnnxErrors, OpsetOutsideTheSupportedRange) {
  OnnxModel m(8);
  m.input("x", {1, 4});
  m.node("Relu", "r", {"x"}, {"y"});
  m.output("y");
  const std::string msg = load_error(m.write("opset8.onnx"));
  EXPECT_CONTAINS(msg, "opset 8; the importer supports 9 to 17");
  EXPECT_CONTAINS(msg, "version_converter");
}

TEST(OnnxErrors, TwoNodesWritingOneTensorAreRejected) {
  // small_model(): node #0 '/conv/Conv' writes c, node #1 '/relu/Relu' writes output. A third
  // node writing c again would silently replace the conv's result.
  OnnxModel m = small_model();
  m.node("Sigmoid", "/dup/Sigmoid", {"input"}, {"c"});
  const std::string path = m.write("dup_writer.onnx");
  EXPECT_EQ(load_error(path), path +
                                  ": error: node #2 '/dup/Sigmoid' (Sigmoid): writes tensor 'c', which node #0 "
                                  "'/conv/Conv' (Conv) also writes; every tensor must have exactly one producer: "
                                  "rename one of the outputs (re-export the model)");
}

TEST(OnnxErrors, NodeWritingAGraphInputIsRejected) {
  OnnxModel m = small_model();
  m.node("Relu", "/over/Relu", {"output"}, {"input"});
  const std::string path = m.write("writes_input.onnx");
  EXPECT_CONTAINS(load_error(path), path + ": error: node #2 '/over/Relu' (Relu): writes tensor 'input', which is "
                                           "already a graph input or initializer");
}

TEST(OnnxErrors, InputThatNothingDefines) {
  OnnxModel m(13);
  m.input("x", {1, 4});
  m.node("Add", "a", {"x", "missing_weight"}, {"y"});
  m.output("y");
  EXPECT_CONTAINS(load_error(m.write("undefined.onnx")),
                  "node #0 'a' (Add): input 'missing_weight' is not a graph input, an initializer");
}

TEST(OnnxErrors, InitializerWithTooFewValues) {
  OnnxModel m(13);
  m.input("x", {1, 4});
  m.init_float("b", {4}, {1, 2, 3});  // 3 values for 4 elements
  m.node("Add", "a", {"x", "b"}, {"y"});
  m.output("y");
  EXPECT_CONTAINS(load_error(m.write("short_init.onnx")),
                  "constant tensor 'b' holds 3 values but its shape has 4 elements");
}

TEST(OnnxErrors, NonConstantClipBound) {
  OnnxModel m(13);
  m.input("x", {1, 4});
  m.input("hi", {});
  m.node("Clip", "clip", {"x", "", "hi"}, {"y"});
  m.output("y");
  // A bound computed at run time: the Clip keeps it as an input and runs on the host.
  const Graph g = load_model(m.write("dyn_clip.onnx"));
  EXPECT_TRUE(g.nodes[0].on_host);
  EXPECT_EQ(g.nodes[0].host_reason, "Clip bound computed at run time");
}

// x + b where b's data lives in the external file `location`.
OnnxModel external_data_model(const std::string& location) {
  OnnxModel m(13);
  m.input("x", {1, 2});
  auto* t = m.graph().add_initializer();
  t->set_name("b");
  t->set_data_type(onnx::TensorProto_DataType_FLOAT);
  t->add_dims(2);
  t->set_data_location(onnx::TensorProto_DataLocation_EXTERNAL);
  auto* kv = t->add_external_data();
  kv->set_key("location");
  kv->set_value(location);
  m.node("Add", "a", {"x", "b"}, {"y"});
  m.output("y");
  return m;
}

TEST(OnnxErrors, MissingExternalDataFile) {
  EXPECT_CONTAINS(load_error(external_data_model("no_such_weights.bin").write("ext_missing.onnx")),
                  "keeps its data in external file");
}

TEST(OnnxErrors, ExternalDataOutsideTheModelFolderIsRefused) {
  // As ONNX's checker: a model must not make the tool read /etc/passwd or any file outside it.
  for (const char* where : {"../../../../etc/passwd", "/etc/passwd", "sub/../../x.bin"}) {
    EXPECT_CONTAINS(load_error(external_data_model(where).write("ext_escape.onnx")), "outside the model's folder");
  }
}

TEST(OnnxErrors, ExternalDataThroughASymlinkOutOfTheFolderIsRefused) {
  // Issue 27: "../" and absolute locations were refused, but a link inside the model's folder
  // could point anywhere. Locations are resolved (realpath) and must stay under the folder.
  namespace fs = std::filesystem;
  const fs::path model = OnnxModel::write_bytes("ext_link_probe.bin", std::string(8, '\0'));
  const fs::path dir = model.parent_path();
  const fs::path outside = fs::temp_directory_path() / ("npu_ext_outside_" + std::to_string(::getpid()));
  fs::create_directories(outside);
  { std::ofstream(outside / "secret.bin", std::ios::binary) << std::string(8, '\0'); }
  std::error_code ec;
  fs::remove(dir / "link.bin", ec);
  fs::remove(dir / "linkdir", ec);
  fs::create_symlink(outside / "secret.bin", dir / "link.bin");  // a file link
  fs::create_directory_symlink(outside, dir / "linkdir");        // a folder link
  for (const char* where : {"link.bin", "linkdir/secret.bin"}) {
    const std::string msg = load_error(external_data_model(where).write("ext_link.onnx"));
    EXPECT_CONTAINS(msg, "outside the model's folder");
    EXPECT_CONTAINS(msg, "symbolic link");
    EXPECT_CONTAINS(msg, (outside / "secret.bin").string());  // where it resolves to
  }
  // A link that stays inside the folder is a file inside it: accepted (2 floats, 8 bytes).
  fs::remove(dir / "inner.bin", ec);
  fs::create_symlink(dir / "ext_link_probe.bin", dir / "inner.bin");
  EXPECT_EQ(load_error(external_data_model("inner.bin").write("ext_inner.onnx")), "");
  fs::remove_all(outside, ec);
}

TEST(OnnxErrors, UnknownZooNameListsTheZoo) {
  const std::string msg = load_error("resnet51");
  EXPECT_CONTAINS(msg, "resnet51: error: unknown model");
  EXPECT_CONTAINS(msg, "mobilenet_v2, resnet18, resnet50, yolov5s");
}

}  // namespace
}  // namespace npu::compiler

namespace npu::compiler {
namespace {

// x [1,8] -> NonZero -> nz [2, ?] -> Transpose -> [?, 2] -> Relu (graph output). NonZero has
// no NPU lowering; what follows it is sized only at run time.
std::string nonzero_model() {
  OnnxModel m(13);
  m.input("x", {1, 8});
  m.node("NonZero", "nz", {"x"}, {"idx"});
  m.node("Transpose", "tr", {"idx"}, {"t"});
  m.output("t");
  return m.write("nonzero.onnx");
}

TEST(DynamicSize, WithoutABoundWhatFollowsARunTimeSizeIsOnTheHostUnsized) {
  const Graph g = load_model(nonzero_model());
  for (const Node& n : g.nodes) EXPECT_TRUE(n.on_host) << n.name;
  EXPECT_FALSE(g.tensor("t").shape_known());
}

TEST(DynamicSize, WithABoundItIsCompiledForTheWorstCaseAndSaysSo) {
  LoadOptions o;
  o.dynamic_size = 5;
  const Graph g = load_model(nonzero_model(), o);
  // NonZero's [2, ?] becomes [2, 5]; the Transpose [5, 2] runs on the NPU, NonZero on the host.
  EXPECT_EQ(g.tensor("idx").shape, (std::vector<std::int64_t>{2, 5}));
  EXPECT_EQ(g.tensor("t").shape, (std::vector<std::int64_t>{5, 2}));
  EXPECT_TRUE(g.nodes[0].on_host);
  EXPECT_FALSE(g.nodes[1].on_host);
  EXPECT_EQ(g.bounded_tensors, (std::set<std::string>{"idx", "t"}));
  const CompileResult r = compile(g, testing::edge_like_hw(), builtin_strategy("none"));
  bool warned = false;
  for (const auto& w : r.warnings) warned = warned || w.find("compiled for --dynamic-size 5") != std::string::npos;
  EXPECT_TRUE(warned);
}

}  // namespace
}  // namespace npu::compiler

namespace npu::compiler {
namespace {

// If(cond) with then: Relu(x), else: Sigmoid(x); cond from Equal(Size(x), 8), a constant
// once x [1,8] is static (torchvision's detection heads branch on shapes like this).
std::string if_model() {
  OnnxModel m(13);
  m.input("x", {1, 8});
  m.init_int64("eight", {}, {8});
  m.node("Size", "size", {"x"}, {"n"});
  m.node("Equal", "eq", {"n", "eight"}, {"cond"});
  onnx::NodeProto& iff = m.node("If", "branch", {"cond"}, {"z"});
  for (const auto& [attr, op] : {std::pair<const char*, const char*>{"then_branch", "Relu"}, {"else_branch", "Sigmoid"}}) {
    auto* a = iff.add_attribute();
    a->set_name(attr);
    a->set_type(onnx::AttributeProto_AttributeType_GRAPH);
    auto* g = a->mutable_g();
    g->set_name(attr);
    auto* n = g->add_node();
    n->set_op_type(op);
    n->set_name(std::string(attr) + "_op");
    n->add_input("x");
    n->add_output(std::string(attr) + "_out");
    auto* o = g->add_output();
    o->set_name(std::string(attr) + "_out");
    auto* tt = o->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto_DataType_FLOAT);
  }
  m.output("z");
  return m.write("if.onnx");
}

TEST(ConstantIf, TheBranchTakenReplacesTheIf) {
  const Graph g = load_model(if_model());
  // Size(x) = 8 -> cond true -> then_branch: Relu(x), then z = Identity (an alias).
  bool relu = false;
  for (const Node& n : g.nodes) {
    EXPECT_NE(n.op_type, "If");
    EXPECT_NE(n.op_type, "Sigmoid");
    relu = relu || n.op_type == "Relu";
    EXPECT_FALSE(n.on_host) << n.name << ": " << n.host_reason;
  }
  EXPECT_TRUE(relu);
  EXPECT_EQ(g.tensor("z").shape, (std::vector<std::int64_t>{1, 8}));
}

}  // namespace
}  // namespace npu::compiler
