// --dynamic-size on the ops of detection post-processing (issue 28 kind 8): after a NonZero,
// the index arithmetic of Mask R-CNN's RoI level mapping and RetinaNet's box decoding (Cast,
// comparisons, Not, Mod, a Where with a computed condition) is compiled for the bound and runs
// on the NPU; only the NonZero, whose output size is data-dependent, stays on the host.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/frontend/model_loader.hpp"
#include "test_compile_graphs.hpp"
#include "test_onnx_util.hpp"

namespace npu::compiler {
namespace {

using npu::test::OnnxModel;

// x [1, 8] -> NonZero idx [2, ?] (int64) -> Cast to float f; Equal(f, 0) e; Not(e) ne;
// Mod(idx, 3) md (fmod=0); Where(ne, f, Floor(f * 0.5)) w; GreaterOrEqual(f, 1) and Xor with e.
std::string head_model() {
  OnnxModel m(13);
  m.input("x", {1, 8});
  m.init_float("zero", {}, {0.0f});
  m.init_float("one", {}, {1.0f});
  m.init_float("half", {}, {0.5f});
  m.init_int64("three", {}, {3});
  m.node("NonZero", "nz", {"x"}, {"idx"});
  OnnxModel::attr_i(m.node("Cast", "cast", {"idx"}, {"f"}), "to", 1);
  m.node("Equal", "eq", {"f", "zero"}, {"e"});
  m.node("Not", "not", {"e"}, {"ne"});
  OnnxModel::attr_i(m.node("Mod", "mod", {"idx", "three"}, {"md"}), "fmod", 0);
  m.node("Mul", "mul", {"f", "half"}, {"h"});
  m.node("Floor", "floor", {"h"}, {"fl"});
  m.node("Where", "where", {"ne", "f", "fl"}, {"w"});
  m.node("GreaterOrEqual", "ge", {"f", "one"}, {"g"});
  m.node("Xor", "xor", {"g", "e"}, {"xr"});
  for (const char* o : {"md", "w", "xr"}) m.output(o);
  return m.write("dynamic_detection_ops.onnx");
}

TEST(DynamicDetectionOps, WithABoundOnlyTheNonZeroStaysOnTheHost) {
  LoadOptions o;
  o.dynamic_size = 5;
  const Graph g = load_model(head_model(), o);
  // NonZero of a [1, 8] input: [rank 2, count ?] -> [2, 5] under the bound, and so every
  // element-wise op after it.
  for (const char* t : {"idx", "f", "e", "ne", "md", "h", "fl", "w", "g", "xr"})
    EXPECT_EQ(g.tensor(t).shape, (std::vector<std::int64_t>{2, 5})) << t;
  const CompileResult r = compile(g, testing::edge_like_hw(), builtin_strategy("none"));
  ASSERT_EQ(r.lowered.host_nodes.size(), 1u);
  EXPECT_EQ(r.lowered.host_nodes[0].op_type, "NonZero");
  // The Cast int64 -> float changes no value: a zero-copy view, no layer. Equal, Not, Mod, Mul,
  // Floor, GreaterOrEqual, Xor are one layer each, the Where four (not(c), x * c, y * not(c), add).
  std::size_t npu_layers = 0;
  for (const auto& L : r.lowered.layers) npu_layers += L.kind == LayerKind::Host ? 0 : 1;
  EXPECT_EQ(npu_layers, 7u + 4u);
  EXPECT_NE(std::find(r.lowered.aliases.begin(), r.lowered.aliases.end(), "cast"), r.lowered.aliases.end());
}

TEST(DynamicDetectionOps, WithoutABoundEverythingAfterTheNonZeroIsUnsizedOnTheHost) {
  const Graph g = load_model(head_model());
  for (const Node& n : g.nodes) EXPECT_TRUE(n.on_host) << n.name;
}

TEST(DynamicDetectionOps, AWhereWithABroadcastOperandSaysWhyItStaysOnTheHost) {
  // Where(c [1, 4] computed, x [1, 4], scalar 0): the vector-unit select needs every operand at
  // the output's size.
  OnnxModel m(13);
  m.input("x", {1, 4});
  m.init_float("zero", {}, {0.0f});
  m.node("Greater", "gt", {"x", "zero"}, {"c"});
  m.node("Where", "where", {"c", "x", "zero"}, {"y"});
  m.output("y");
  const CompileResult r = compile(load_model(m.write("where_broadcast.onnx")), testing::edge_like_hw(),
                                  builtin_strategy("none"));
  ASSERT_EQ(r.lowered.host_nodes.size(), 1u);
  EXPECT_EQ(r.lowered.host_nodes[0].op_type, "Where");
  EXPECT_NE(r.lowered.host_nodes[0].reason.find("broadcast operand 'zero'"), std::string::npos)
      << r.lowered.host_nodes[0].reason;
}

}  // namespace
// Ops whose ONNX result the NPU's fp32 values would not give stay on the host and say why
// (review of issue 28 kind 8): each model is a Relu (so that the program is not empty) and the
// node under test, which must be the one node on the host.
std::string host_reason_of(OnnxModel& m, const std::string& file) {
  const CompileResult r = compile(load_model(m.write(file)), testing::edge_like_hw(), builtin_strategy("none"));
  if (r.lowered.host_nodes.size() != 1) return "host nodes: " + std::to_string(r.lowered.host_nodes.size());
  return r.lowered.host_nodes[0].reason;
}

TEST(DynamicDetectionOps, AWhereWithAnInfiniteConstantSideStaysOnTheHost) {
  // Where(c, x, -inf): x c + (-inf)(1 - c) is NaN wherever c = 1 (-inf x 0), not x.
  OnnxModel m(13);
  m.input("x", {1, 4});
  m.init_float("zero", {}, {0.0f});
  m.init_float("ninf", {1, 4}, std::vector<float>(4, -std::numeric_limits<float>::infinity()));
  m.node("Relu", "relu", {"x"}, {"xa"});
  m.node("Greater", "gt", {"xa", "zero"}, {"c"});
  m.node("Where", "where", {"c", "xa", "ninf"}, {"y"});
  m.output("y");
  const std::string reason = host_reason_of(m, "where_inf.onnx");
  EXPECT_NE(reason.find("non-finite constant operand 'ninf'"), std::string::npos) << reason;
}

TEST(DynamicDetectionOps, NarrowingAndUnknownCastsStayOnTheHost) {
  for (const std::int64_t to : {std::int64_t(3), std::int64_t(10), std::int64_t(8)}) {  // int8, float16, string
    OnnxModel m(13);
    m.input("x", {1, 4});
    m.node("Relu", "relu", {"x"}, {"xa"});
    OnnxModel::attr_i(m.node("Cast", "cast", {"xa"}, {"y"}), "to", to);
    m.output("y");
    const std::string reason = host_reason_of(m, "cast_" + std::to_string(to) + ".onnx");
    const char* want = to == 3 ? "8- or 16-bit integer" : to == 10 ? "float16/bfloat16" : "ONNX type 8";
    EXPECT_NE(reason.find(want), std::string::npos) << to << ": " << reason;
  }
}

TEST(DynamicDetectionOps, AFloatModWithFmodZeroStaysOnTheHost) {
  // ONNX: "If the input type is floating point, then fmod attribute must be set to 1".
  OnnxModel m(13);
  m.input("x", {1, 4});
  m.init_float("three", {}, {3.0f});
  m.node("Relu", "relu", {"x"}, {"xa"});
  OnnxModel::attr_i(m.node("Mod", "mod", {"xa", "three"}, {"y"}), "fmod", 0);
  m.output("y");
  const std::string reason = host_reason_of(m, "mod_float.onnx");
  EXPECT_NE(reason.find("fmod=0 on floating-point inputs"), std::string::npos) << reason;
}

}  // namespace npu::compiler
