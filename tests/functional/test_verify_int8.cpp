// check_int8_execution (sim/verify.hpp): an fp32 graph post-training quantised per strategy,
// compiled for an int8 config, executed with data in a forked child and compared bit for bit
// with the integer reference interpreter. The graph has what PTQ and the int8 data path must
// agree on: BN (folded, or not), Relu, MaxPool and Concat (shared grids), a residual Add (kept
// as an int8 ELTWISE add), GlobalAveragePool + Flatten + Gemm.
#include <gtest/gtest.h>

#include "npu/compiler/compiler.hpp"
#include "npu/compiler/quantize/calibration.hpp"
#include "npu/compiler/quantize/error_metrics.hpp"
#include "npu/compiler/quantize/ptq.hpp"
#include "npu/compiler/reference_interpreter.hpp"
#include "npu/compiler/strategy.hpp"
#include "npu/sim/verify.hpp"
#include "test_compile_graphs.hpp"

namespace npu {
namespace {

using compiler::testing::GraphBuilder;

compiler::Graph residual_net() {
  GraphBuilder b("int8net");
  const std::string x = b.input("input", {1, 3, 16, 16});
  const std::string r1 = b.unary("relu1", "Relu", b.bn("bn1", b.conv("conv1", x, 8, 3, 1, 1)));
  const std::string p = b.maxpool("pool", r1, 2, 2, 0);                                  // 8x8x8
  const std::string c2 = b.bn("bn2", b.conv("conv2", p, 8, 3, 1, 1));
  const std::string r2 = b.unary("relu2", "Relu", b.binary("add", "Add", c2, p));       // residual
  const std::string cat = b.concat("cat", {r2, p});                                     // 16x8x8
  const std::string c3 = b.unary("relu3", "Relu", b.conv("conv3", cat, 8, 1, 1, 0, 1, true));
  b.g.outputs.push_back(b.global_avg_pool_flatten_gemm("head", c3, 10));
  return b.g;
}

TEST(VerifyInt8, EveryStrategyThatFoldsBnRunsBitExactWithTheIntegerReference) {
  const compiler::Graph g = residual_net();
  const HwConfig hw = load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  const auto calib = compiler::generate_calibration(g, 1, 4);
  const compiler::RefTensorMap in = compiler::generate_calibration(g, 99, 1).at(0);
  const compiler::RefTensorMap fp32 = compiler::run_reference(g, in);
  for (const std::string& name : compiler::builtin_strategy_names()) {
    const compiler::Strategy st = compiler::builtin_strategy(name);
    const compiler::Graph qg = compiler::quantize_graph(g, st, calib).graph;
    const compiler::CompileResult c = compiler::compile(qg, hw, st);
    const sim::Int8Check r = sim::check_int8_execution(c, hw, qg, in);
    const bool folds = std::find(st.passes.begin(), st.passes.end(), "fold-batchnorm") != st.passes.end();
    if (!folds) {
      // BN not folded has no int8 rule: said, never a number.
      EXPECT_FALSE(r.run) << name;
      EXPECT_NE(r.status.find("not run: integer reference:"), std::string::npos) << name << ": " << r.status;
      EXPECT_NE(r.status.find("no int8 rule for op 'BatchNormalization'"), std::string::npos) << name << ": " << r.status;
      continue;
    }
    EXPECT_TRUE(r.run) << name << ": " << r.status;
    EXPECT_EQ(r.status, "bit-exact") << name;
    // The simulated int8 result against fp32: 255 levels per tensor over 5 quantised layers is
    // well above 20 dB (10 % RMS error); a wrong grid or requant would fall near 0 dB.
    ASSERT_EQ(r.outputs.count(g.outputs[0]), 1u) << name;
    const double sqnr = compiler::sqnr_db(fp32.at(g.outputs[0]).f, r.outputs.at(g.outputs[0]).f);
    EXPECT_GT(sqnr, 20.0) << name;
  }
}

TEST(VerifyInt8, AProgramThatDiffersFromTheReferenceIsCountedNotHidden) {
  // Corrupt one requant table entry's source: give the quantised graph a different output grid
  // for the reference than the program was compiled with. The program's int8 outputs then
  // differ from the reference's, and the status counts them.
  const compiler::Graph g = residual_net();
  const HwConfig hw = load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  const compiler::Strategy st = compiler::builtin_strategy("conv-bn-act");
  const auto calib = compiler::generate_calibration(g, 1, 4);
  const compiler::RefTensorMap in = compiler::generate_calibration(g, 99, 1).at(0);
  const compiler::Graph qg = compiler::quantize_graph(g, st, calib).graph;
  const compiler::CompileResult c = compiler::compile(qg, hw, st);
  compiler::Graph other = qg;
  auto& q = other.tensor(g.outputs[0]).quant;
  ASSERT_TRUE(q.has_value());
  q->scale[0] *= 0.5f;  // the reference's output grid is twice as fine: about twice the values
  const sim::Int8Check r = sim::check_int8_execution(c, hw, other, in);
  EXPECT_TRUE(r.run);
  EXPECT_NE(r.status.find(" of 10 int8 values differ from the integer reference (max "), std::string::npos) << r.status;
}

}  // namespace
}  // namespace npu
