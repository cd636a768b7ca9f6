// The vector-unit ops of detection post-processing (issue 28 kind 8: Mask R-CNN's RoI level
// mapping, RetinaNet's box decoding): comparisons, logic, Not, Floor, Ceil, Log, Mod, Cast and a
// Where with a computed condition, run with data under every strategy. Every expected value is
// worked out below from the ONNX operator definitions on the chosen inputs (booleans are 0/1
// values of the activation type on the NPU), and checked against the reference interpreter too.
#include <gtest/gtest.h>

#include <cmath>

#include "functional_test_util.hpp"
#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/reference/reference_interpreter.hpp"
#include "npu/compiler/transforms/strategy.hpp"

namespace {

using namespace npu;
using compiler::ElemType;
using compiler::testing::GraphBuilder;

const std::vector<float> kA = {-2.5f, -1.0f, 0.0f, 0.5f, 1.5f, 3.0f, 4.25f, 7.0f};
const std::vector<float> kB = {1.0f, 0.5f, 2.0f, 0.25f, 1.5f, 2.0f, 8.0f, 3.0f};

// a, b [1, 8] -> one output per op (names below); `typed` outputs get their ONNX element type.
GraphBuilder detection_ops_graph() {
  GraphBuilder b("detection_ops");
  b.input("a", {1, 8});
  b.input("b", {1, 8});
  b.scalar("two", 2.0f);
  compiler::Tensor& three = b.add_tensor("three", {}, true);  // an int64 constant: 3
  three.type = ElemType::Int64;
  three.int_data = {3};
  auto op = [&](const std::string& name, const std::string& type, std::vector<std::string> ins, ElemType t) {
    b.add_tensor(name, {1, 8}).type = t;
    b.node(name + ".node", type, std::move(ins), {name});
    b.output(name);
    return name;
  };
  const std::string ge = op("ge", "GreaterOrEqual", {"a", "b"}, ElemType::Bool);
  const std::string lt = op("lt", "Less", {"a", "two"}, ElemType::Bool);
  op("gt_swapped", "Greater", {"two", "a"}, ElemType::Bool);  // two > a: the broadcast operand first
  const std::string x = op("xor", "Xor", {ge, lt}, ElemType::Bool);
  const std::string nd = op("and", "And", {ge, lt}, ElemType::Bool);
  op("not", "Not", {x}, ElemType::Bool);
  op("eq", "Equal", {"a", "b"}, ElemType::Bool);
  op("where", "Where", {nd, "a", "b"}, ElemType::Float32);
  op("floor", "Floor", {"a"}, ElemType::Float32);
  op("ceil", "Ceil", {"a"}, ElemType::Float32);
  op("log", "Log", {"b"}, ElemType::Float32);
  const std::string ti = op("trunc", "Cast", {"a"}, ElemType::Int64);
  b.g.nodes.back().attrs["to"] = std::int64_t(7);  // INT64
  op("mod", "Mod", {ti, "three"}, ElemType::Int64);
  op("to_bool", "Cast", {"a"}, ElemType::Bool);
  b.g.nodes.back().attrs["to"] = std::int64_t(9);  // BOOL
  op("to_float", "Cast", {ge}, ElemType::Float32);
  b.g.nodes.back().attrs["to"] = std::int64_t(1);  // FLOAT
  return b;
}

// Hand-derived from kA and kB (index 0..7).
std::map<std::string, std::vector<float>> expected() {
  std::vector<float> log_b;
  for (float v : kB) log_b.push_back(std::log(v));
  return {
      {"ge", {0, 0, 0, 1, 1, 1, 0, 1}},                        // a >= b
      {"lt", {1, 1, 1, 1, 1, 0, 0, 0}},                        // a < 2
      {"gt_swapped", {1, 1, 1, 1, 1, 0, 0, 0}},                // 2 > a
      {"xor", {1, 1, 1, 0, 0, 1, 0, 1}},                       // ge != lt
      {"and", {0, 0, 0, 1, 1, 0, 0, 0}},                       // ge and lt
      {"not", {0, 0, 0, 1, 1, 0, 1, 0}},                       // not xor
      {"eq", {0, 0, 0, 0, 1, 0, 0, 0}},                        // a == b only at 1.5
      {"where", {1, 0.5f, 2, 0.5f, 1.5f, 2, 8, 3}},            // and ? a : b
      {"floor", {-3, -1, 0, 0, 1, 3, 4, 7}},
      {"ceil", {-2, -1, 0, 1, 2, 3, 5, 7}},
      {"log", log_b},
      {"trunc", {-2, -1, 0, 0, 1, 3, 4, 7}},                   // Cast float -> int64 rounds toward 0
      {"mod", {1, 2, 0, 0, 1, 0, 1, 1}},                       // trunc mod 3, divisor's sign (-2 -> 1, -1 -> 2)
      {"to_bool", {1, 1, 0, 1, 1, 1, 1, 1}},                   // a != 0
      {"to_float", {0, 0, 0, 1, 1, 1, 0, 1}},                  // ge as 0/1
  };
}

TEST(DetectionVectorOpsData, ComparisonsLogicCastModAndWhereRunOnTheNpuWithHandDerivedValues) {
  const GraphBuilder b = detection_ops_graph();
  const auto want = expected();
  compiler::RefTensorMap in;
  in["a"].shape = {1, 8};
  in["a"].f = kA;
  in["b"].shape = {1, 8};
  in["b"].f = kB;
  const compiler::RefTensorMap ref = compiler::run_reference(b.g, in);
  for (const auto& [name, v] : want) {
    const compiler::RefTensor& r = ref.at(name);
    std::vector<float> got = r.f;
    if (got.empty())
      for (std::int64_t i : r.i) got.push_back(float(i));
    EXPECT_EQ(got, v) << name << ": the hand-derived values disagree with the reference interpreter";
  }
  const HwConfig hw = test::fp32_hw();
  for (const std::string& s : compiler::builtin_strategy_names()) {
    const auto c = compiler::compile(b.g, hw, compiler::builtin_strategy(s));
    for (const auto& L : c.lowered.layers) EXPECT_NE(L.kind, compiler::LayerKind::Host) << s << " " << L.name;
    const auto r = test::run_forked(c, hw, {{"a", kA}, {"b", kB}}, true);
    ASSERT_TRUE(r.ok) << s << ": " << r.error;
    for (const auto& [name, v] : want) EXPECT_EQ(r.outputs.at(name), v) << s << " " << name;
  }
}

}  // namespace
