// check_int8_execution (sim/verify.hpp): an fp32 graph post-training quantised per strategy,
// compiled for an int8 config, executed with data in a forked child and compared bit for bit
// with the integer reference interpreter. The graph has what PTQ and the int8 data path must
// agree on: BN (folded, or not), Relu, MaxPool and Concat (shared grids), a residual Add (kept
// as an int8 ELTWISE add), GlobalAveragePool + Flatten + Gemm.
#include <gtest/gtest.h>

#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/quantize/calibration.hpp"
#include "npu/compiler/quantize/error_metrics.hpp"
#include "npu/compiler/quantize/ptq.hpp"
#include "npu/compiler/reference/reference_interpreter.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "npu/sim/verify/verify.hpp"
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

TEST(VerifyInt8, EveryStrategyRunsBitExactWithTheIntegerReference) {
  // Strategies that fold BN quantise the folded weights; the others keep BN as its own int8
  // layer (a per-channel affine map, batchnorm_int8): either way the program equals the integer
  // reference bit for bit.
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
    EXPECT_TRUE(r.run) << name << ": " << r.status;
    EXPECT_EQ(r.status, "bit-exact") << name;
    // 8 KiB of SRAM: every layer tiled; an unfolded BN's per-channel pairs load per channel tile
    // (bn1: (8 KiB - slack) / 1056 B per channel of 16x16 = 7 of its 8 channels per tile).
    HwConfig small = hw;
    small.sram.capacity_bytes = 8 * 1024;
    const sim::Int8Check rs = sim::check_int8_execution(compiler::compile(qg, small, st), small, qg, in);
    EXPECT_EQ(rs.status, "bit-exact") << name << " at 8 KiB";
    // The simulated int8 result against fp32: 255 levels per tensor over 5 quantised layers is
    // well above 20 dB (10 % RMS error); a wrong grid or requant would fall near 0 dB.
    ASSERT_EQ(r.outputs.count(g.outputs[0]), 1u) << name;
    const double sqnr = compiler::sqnr_db(fp32.at(g.outputs[0]).f, r.outputs.at(g.outputs[0]).f);
    EXPECT_GT(sqnr, 20.0) << name;
  }
}

TEST(VerifyInt8, AnUnfoldedBnWhosePlaneExceedsTheSramRunsInChunksBitExact) {
  // Conv -> BN -> Relu on 48x48 planes at 8 KiB: one channel of the BN (48 x 48 B in and out,
  // double-buffered: 9 KiB) does not fit, so its ACT runs in chunks of a channel, each with
  // that channel's w, b and requantisation pair.
  GraphBuilder b("bigplane");
  const std::string x = b.input("input", {1, 2, 48, 48});
  b.g.outputs.push_back(b.unary("relu", "Relu", b.bn("bn", b.conv("conv", x, 4, 3, 1, 1))));
  const compiler::Graph g = b.g;
  HwConfig hw = load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  hw.sram.capacity_bytes = 8 * 1024;
  const compiler::Strategy st = compiler::builtin_strategy("none");
  const compiler::Graph qg = compiler::quantize_graph(g, st, compiler::generate_calibration(g, 1, 2)).graph;
  const compiler::CompileResult c = compiler::compile(qg, hw, st);
  bool chunked = false;
  for (const auto& L : c.report.layers)
    if (L.layer == "bn") chunked = L.tile.rfind("1c x ", 0) == 0;
  EXPECT_TRUE(chunked) << "the BN layer should run in chunks of one channel";
  const sim::Int8Check r = sim::check_int8_execution(c, hw, qg, compiler::generate_calibration(g, 5, 1).at(0));
  EXPECT_EQ(r.status, "bit-exact");
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
