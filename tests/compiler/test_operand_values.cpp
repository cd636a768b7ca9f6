// check_constant_operands (transforms/canonicalize/operand_values.hpp) on axes whose size is
// not known at import: a dynamic dimension (negative) must not make every constant index or
// reflect pad "out of range"; a known size is still checked.
#include <gtest/gtest.h>

#include "npu/base/config_error.hpp"
#include "test_compile_graphs.hpp"
#include "transforms/canonicalize/operand_values.hpp"

namespace {

using namespace npu;
using compiler::testing::GraphBuilder;

TEST(OperandValues, ADynamicAxisIsNotCheckedAKnownOneIs) {
  GraphBuilder b("dyn");
  b.input("x", {1, -1, 8});  // axis 1: dynamic
  b.ints("i", {5});          // within any axis of 6 or more; unknown here
  b.add_tensor("y", {1, 1, 8});
  compiler::Node& g = b.node("gather", "Gather", {"x", "i"}, {"y"});
  g.attrs["axis"] = std::int64_t{1};
  EXPECT_NO_THROW(compiler::check_constant_operands(b.g, g, "m.onnx: error: node #0"));
  // Axis 2 has 8 entries: index 5 is inside [-8, 7], index 8 is not.
  g.attrs["axis"] = std::int64_t{2};
  EXPECT_NO_THROW(compiler::check_constant_operands(b.g, g, "m.onnx: error: node #0"));
  b.g.tensors.at("i").int_data = {8};
  EXPECT_THROW(compiler::check_constant_operands(b.g, g, "m.onnx: error: node #0"), ConfigError);
}

TEST(OperandValues, AReflectPadOnADynamicAxisIsNotChecked) {
  GraphBuilder b("dyn");
  b.input("x", {1, -1, 8});
  b.ints("p", {0, 3, 0, 0, 3, 0});  // 3 rows mirrored on the dynamic axis 1
  b.add_tensor("y", {1, -1, 8});
  compiler::Node& n = b.node("pad", "Pad", {"x", "p"}, {"y"});
  n.attrs["mode"] = std::string("reflect");
  EXPECT_NO_THROW(compiler::check_constant_operands(b.g, n, "m.onnx: error: node #0"));
  // The same pads on the known axis 2 of size 8 are fine up to 7; 8 mirrors one too many.
  b.g.tensors.at("p").int_data = {0, 0, 8, 0, 0, 0};
  EXPECT_THROW(compiler::check_constant_operands(b.g, n, "m.onnx: error: node #0"), ConfigError);
}

}  // namespace
