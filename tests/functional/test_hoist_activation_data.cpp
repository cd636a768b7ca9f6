// hoist-activation by values: a detection-head pattern (Conv -> Reshape -> Transpose ->
// Sigmoid) gives the fp32 reference interpreter's output under every strategy (the fusing ones
// run the Sigmoid as the Conv's epilogue, before the layout ops), and int8 programs are
// bit-exact with the integer reference of the graph each strategy quantises.
#include <gtest/gtest.h>

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

// x [1,8,10,12] -> conv 3x3 8->18 (bias) -> Reshape [1,3,6,10,12] -> Transpose(0,1,3,4,2)
// -> Sigmoid -> y [1,3,10,12,6].
compiler::Graph detect_head() {
  GraphBuilder b("detect_head");
  const std::string x = b.input("x", {1, 8, 10, 12});
  const std::string c = b.conv("m", x, 18, 3, 1, 1, 1, true);
  Tensor& shape = b.add_tensor("shape", {5}, true);
  shape.type = compiler::ElemType::Int64;
  shape.int_data = {1, 3, 6, 10, 12};
  b.add_tensor("r", {1, 3, 6, 10, 12});
  b.node("reshape", "Reshape", {c, "shape"}, {"r"});
  b.add_tensor("t", {1, 3, 10, 12, 6});
  b.node("transpose", "Transpose", {"r"}, {"t"}).attrs["perm"] = std::vector<std::int64_t>{0, 1, 3, 4, 2};
  b.output(b.unary("sig", "Sigmoid", "t"));
  return b.g;
}

TEST(HoistActivationData, EveryStrategyGivesTheReference) {
  const compiler::Graph g = detect_head();
  const HwConfig hw = test::fp32_hw(16 * 1024);  // several tiles per layer
  const compiler::RefTensorMap in = compiler::generate_calibration(g, 9, 1).at(0);
  const compiler::RefTensorMap ref = compiler::run_reference(g, in);
  for (const std::string& s : compiler::builtin_strategy_names()) {
    SCOPED_TRACE("strategy " + s);
    const compiler::CompileResult c = compiler::compile(g, hw, compiler::builtin_strategy(s));
    int sigmoid_layers = 0;
    for (const auto& L : c.lowered.layers) sigmoid_layers += L.op_type == "Sigmoid";
    EXPECT_EQ(sigmoid_layers, s == "none" || s == "conv-bn" ? 1 : 0);
    const auto r = test::run_forked(c, hw, {{"x", in.at("x").f}}, true);
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_EQ(r.outputs.count("sig.out"), 1u);
    EXPECT_LE(test::rel_err(r.outputs.at("sig.out"), test::to_double(ref.at("sig.out").f)), 1e-6);
  }
}

TEST(HoistActivationData, Int8IsBitExactUnderEveryStrategy) {
  const compiler::Graph g = detect_head();
  const HwConfig hw = load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  npu::test::expect_int8_bit_exact_under_every_strategy(g, hw, 5, 6);
}

}  // namespace
