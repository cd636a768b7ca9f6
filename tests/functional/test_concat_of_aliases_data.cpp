// A Concat along the outermost axis whose inputs are Reshapes (pure aliases) of tensors NPU
// layers write: lowering places those tensors straight into the Concat's slices (zero copy),
// as YOLOv5's head concatenates the Reshapes of its three scales' box-decode Concats (issue 11:
// the copy moved 4.28 MB per inference). Checked by structure and by values: every strategy
// gives the fp32 reference interpreter's output, and the int8 programs are bit-exact.
#include <gtest/gtest.h>

#include <algorithm>

#include "functional_test_util.hpp"
#include "int8_test_util.hpp"
#include "npu/compiler/quantize/calibration.hpp"
#include "npu/compiler/reference/reference_interpreter.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "test_compile_graphs.hpp"

namespace {

using namespace npu;
using compiler::Tensor;
using compiler::testing::GraphBuilder;

// x [1,4,8,8] -> a = conv 3x3 4->6 -> Reshape [1,384,1]; b = conv 3x3 stride 2 4->2 -> Sigmoid
// -> Reshape [1,32,1]; Concat(axis 1) -> y [1,416,1].
compiler::Graph concat_of_reshapes() {
  GraphBuilder b("cat_reshapes");
  const std::string x = b.input("x", {1, 4, 8, 8});
  const std::string a = b.conv("a", x, 6, 3, 1, 1, 1, true);
  const std::string c = b.unary("b.sig", "Sigmoid", b.conv("b", x, 2, 3, 2, 1, 1, true));
  for (const auto& [name, n] : {std::pair<std::string, std::int64_t>{"shape_a", 384}, {"shape_b", 32}}) {
    Tensor& t = b.add_tensor(name, {3}, true);
    t.type = compiler::ElemType::Int64;
    t.int_data = {1, n, 1};
  }
  b.add_tensor("ra", {1, 384, 1});
  b.add_tensor("rb", {1, 32, 1});
  b.node("reshape_a", "Reshape", {a, "shape_a"}, {"ra"});
  b.node("reshape_b", "Reshape", {c, "shape_b"}, {"rb"});
  b.add_tensor("y", {1, 416, 1});
  b.node("cat", "Concat", {"ra", "rb"}, {"y"}).attrs["axis"] = std::int64_t(1);
  b.output("y");
  return b.g;
}

TEST(ConcatOfAliases, ProducersWriteIntoTheConcatAndValuesMatchTheReference) {
  const compiler::Graph g = concat_of_reshapes();
  const HwConfig hw = test::fp32_hw();
  const compiler::RefTensorMap in = compiler::generate_calibration(g, 3, 1).at(0);
  const compiler::RefTensorMap ref = compiler::run_reference(g, in);
  for (const std::string& s : compiler::builtin_strategy_names()) {
    SCOPED_TRACE("strategy " + s);
    const compiler::CompileResult c = compiler::compile(g, hw, compiler::builtin_strategy(s));
    // No copy layer: the Concat is an alias, and the convs (or the Sigmoid) store at their
    // offsets of y: a at 0, b's 32 values at 384 elements (1536 B in fp32).
    EXPECT_NE(std::find(c.lowered.aliases.begin(), c.lowered.aliases.end(), "cat"), c.lowered.aliases.end());
    for (const auto& L : c.lowered.layers) EXPECT_NE(L.name, "cat");
    ASSERT_EQ(c.lowered.place.count("a.out"), 1u);
    EXPECT_EQ(c.lowered.place.at("a.out").root, "y");
    EXPECT_EQ(c.lowered.place.at("a.out").offset, 0u);
    ASSERT_EQ(c.lowered.place.count("b.sig.out"), 1u);  // the Sigmoid's output (fused into b or not)
    EXPECT_EQ(c.lowered.place.at("b.sig.out").root, "y");
    EXPECT_EQ(c.lowered.place.at("b.sig.out").offset, 384u * 4u);
    const auto r = test::run_forked(c, hw, {{"x", in.at("x").f}}, true);
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_EQ(r.outputs.count("y"), 1u);
    EXPECT_LE(test::rel_err(r.outputs.at("y"), test::to_double(ref.at("y").f)), 1e-5);
  }
}

TEST(ConcatOfAliases, Int8IsBitExactUnderEveryStrategy) {
  const compiler::Graph g = concat_of_reshapes();
  const HwConfig hw = load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  npu::test::expect_int8_bit_exact_under_every_strategy(g, hw, 5, 6);
}

}  // namespace
