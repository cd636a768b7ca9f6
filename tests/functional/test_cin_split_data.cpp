// A Conv whose smallest whole-input-channel tile does not fit the SRAM runs split along input
// channels (compiler cin_split.hpp; CONV acc_in / acc_out, docs/isa.md "CONV partial sums"):
// the planned DDR bytes derived by hand, the fp32 output against the reference interpreter,
// the int8 output bit-exact against the integer reference, and the refusal of a layer whose
// one-channel tile does not fit either.
#include <gtest/gtest.h>

#include <string>

#include "functional_test_util.hpp"
#include "npu/base/config_error.hpp"
#include "npu/compiler/reference/reference_interpreter.hpp"

namespace {

using namespace npu;
using compiler::testing::GraphBuilder;

// x [1, c_in, h, h] -> Conv c_out, 3x3, dilation 12, pad 12, bias -> Relu: an ASPP branch of
// DeepLabV3 in miniature (the output keeps the input's size: h + 24 - 24 - 1 + 1 = h).
compiler::Graph aspp_branch(int c_in, int h, int c_out) {
  GraphBuilder b("aspp");
  const std::string x = b.input("x", {1, c_in, h, h});
  const std::string y = b.conv("c", x, c_out, 3, 1, 12, 1, true);
  b.g.nodes.back().attrs["dilations"] = std::vector<std::int64_t>{12, 12};
  b.g.tensors.at(y).shape = {1, c_out, h, h};
  b.output(b.unary("relu", "Relu", y));
  return b.g;
}

std::uint64_t planned_ddr_bytes(const compiler::CompileResult& c) {
  std::uint64_t n = 0;
  for (const isa::Instruction& in : c.program.instructions)
    if (in.op == isa::Opcode::Load || in.op == isa::Opcode::Store) n += std::get<isa::DmaDesc>(in.params).bytes();
  return n;
}

const compiler::LayerReport& conv_layer(const compiler::CompileResult& c) {
  for (const auto& l : c.report.layers)
    if (l.kind == "conv") return l;
  throw std::runtime_error("no conv layer");
}

TEST(CinSplitData, Fp32DilatedConvSplitsItsInputChannelsAndMatchesTheReference) {
  // [1,64,16,16] fp32. Every output row of a 3x3 dilation-12 conv reads input rows r-12..r+12,
  // clipped to all 16 rows, so the smallest whole-channel tile holds the whole input:
  // 64 x 16 x 16 x 4 B = 64 KiB, which alone fills a 64 KiB SRAM: no unsplit tile fits.
  // The split that moves each byte once: all 8 output channels x all 16 rows (n_co = n_row =
  // 1) in groups of input channels. Its DDR bytes: input 64 x 16 x 16 x 4 = 65,536, weights
  // 8 x 64 x 9 x 4 = 18,432 (each group's slice once), bias 8 x 4 = 32, output
  // 8 x 16 x 16 x 4 = 8,192: 92,192 B. Any other tiling re-reads the input (n_co > 1) or the
  // weights (n_row > 1) and costs >= 25 % more, past the tiler's traffic bound.
  const compiler::Graph g = aspp_branch(64, 16, 8);
  const HwConfig hw = test::fp32_hw(64 * 1024);
  const compiler::CompileResult c = compiler::compile(g, hw, compiler::builtin_strategy("conv-bn-act"));
  EXPECT_NE(conv_layer(c).tile.find("partial sums in SRAM"), std::string::npos) << conv_layer(c).tile;
  EXPECT_EQ(planned_ddr_bytes(c), 65536u + 18432u + 32u + 8192u);
  const std::vector<float> xv = test::random_values(64 * 16 * 16, 3);
  const test::ForkedRun r = test::run_forked(c, hw, {{"x", xv}}, true);
  ASSERT_TRUE(r.ok) << r.error;
  compiler::RefTensorMap in;
  in["x"] = compiler::RefTensor::zeros({1, 64, 16, 16});
  in["x"].f = xv;
  const compiler::RefTensorMap ref = compiler::run_reference(g, in);
  const std::string out = g.outputs[0];
  // fp32 sums of 576 products against the reference's: a few ulps of the output's scale.
  EXPECT_LE(test::rel_err(r.outputs.at(out), test::to_double(ref.at(out).f)), 1e-5);
}

TEST(CinSplitData, Int8DilatedConvSplitRunsBitExactWithTheIntegerReference) {
  // int8 edge preset at 16 KiB: the whole input is 64 x 16 x 16 = 16 KiB, so again no unsplit
  // tile fits. The int32 partial sums (4 B each) accumulate in SRAM and the bias and the
  // requantisation run once, after the last group: the result equals the integer reference.
  const compiler::Graph g = aspp_branch(64, 16, 8);
  HwConfig hw = load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  hw.sram.capacity_bytes = 16 * 1024;
  const compiler::Strategy st = compiler::builtin_strategy("conv-bn-act");
  const compiler::Graph qg = compiler::quantize_graph(g, st, compiler::generate_calibration(g, 5, 4)).graph;
  const compiler::CompileResult c = compiler::compile(qg, hw, st);
  EXPECT_NE(conv_layer(c).tile.find("partial sums in SRAM"), std::string::npos) << conv_layer(c).tile;
  const sim::Int8Check r = sim::check_int8_execution(c, hw, qg, compiler::generate_calibration(g, 6, 1).at(0));
  EXPECT_EQ(r.status, "bit-exact");
}

TEST(CinSplitData, ALayerWhoseOneChannelTileDoesNotFitIsRefusedWithItsSize) {
  // [1,4,64,64] fp32, 4 output channels, 8 KiB SRAM. One output row reads 25 input rows
  // (dilation 12 x 2 + 1), so the minimal split tile (1 output channel x 1 row x 1 input
  // channel), each buffer aligned to 64 B: input band 25 x 64 x 4 = 6,400 B x 2 slots, weights
  // 9 x 4 = 36 -> 64 B x 2, params 8 B x 4 channels = 32 -> 64 B, output row 64 x 4 = 256 B
  // x 2, partial sums 64 x 4 = 256 B: 12,800 + 128 + 64 + 512 + 256 = 13,760 B > 8,192.
  const compiler::Graph g = aspp_branch(4, 64, 4);
  const HwConfig hw = test::fp32_hw(8 * 1024);
  try {
    compiler::compile(g, hw, compiler::builtin_strategy("conv-bn-act"));
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("one output channel x one output row x one input channel"), std::string::npos) << m;
    EXPECT_NE(m.find("needs 13760 bytes"), std::string::npos) << m;
  }
}

}  // namespace
