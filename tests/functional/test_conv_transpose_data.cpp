// ConvTranspose run with data (issue 28, kind 2): its zero insertion is computed by MOVE with
// `zero` (docs/isa.md MOVE), then a stride-1 CONV. fp32 values against numbers worked out by
// hand and against the reference interpreter (compiler/src/reference, ONNX ConvTranspose)
// under every strategy, with SRAMs small enough for several tiles.
#include <gtest/gtest.h>

#include "functional_test_util.hpp"
#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/reference/reference_interpreter.hpp"
#include "npu/compiler/transforms/strategy.hpp"

namespace {

using namespace npu;
using compiler::Node;
using compiler::Tensor;
using compiler::testing::GraphBuilder;

TEST(ConvTransposeData, StrideTwoKernelTwoPlacesEachPixelTimesTheKernel) {
  // x [1,1,2,2] = [[1,2],[3,4]], W [1,1,2,2] = [[1,10],[100,1000]], stride 2, no pads:
  // y [1,1,4,4] with y[2i+a][2j+b] = x[i][j] W[a][b] (the 2x2 windows do not overlap).
  // Zero insertion: [[1,0,2],[0,0,0],[3,0,4]]; the stride-1 conv pads 1 on every side with the
  // kernel flipped, which gives the same y:
  //   1   10    2   20
  //   100 1000  200 2000
  //   3   30    4   40
  //   300 3000  400 4000
  GraphBuilder b("deconv");
  b.input("x", {1, 1, 2, 2});
  Tensor& w = b.add_tensor("w", {1, 1, 2, 2}, true);
  w.float_data = {1, 10, 100, 1000};
  b.add_tensor("y", {1, 1, 4, 4});
  b.node("up", "ConvTranspose", {"x", "w"}, {"y"}).attrs["strides"] = std::vector<std::int64_t>{2, 2};
  b.output("y");
  const HwConfig hw = test::fp32_hw();
  const auto c = compiler::compile(b.g, hw, compiler::builtin_strategy("none"));
  int zeroing = 0;
  for (const auto& in : c.program.instructions)
    if (in.op == isa::Opcode::Move) zeroing += std::get<isa::MoveParams>(in.params).zero > 0;
  EXPECT_EQ(zeroing, 1) << "the zero insertion is one MOVE with zero=9";
  const auto r = test::run_forked(c, hw, {{"x", {1, 2, 3, 4}}}, true);
  ASSERT_TRUE(r.ok) << r.error;
  const std::vector<float> want = {1, 10, 2, 20, 100, 1000, 200, 2000, 3, 30, 4, 40, 300, 3000, 400, 4000};
  EXPECT_EQ(r.outputs.at("y"), want);
}

// x [1,C,H,W] -> ConvTranspose W [C,4,3,3] + bias, strides (2,3), pads 1, output_padding
// (1,2) -> y [1,4,2H,3W] (ONNX: (H-1)2 + 3 - 2 + 1 = 2H, (W-1)3 + 3 - 2 + 2 = 3W) -> Relu, run
// under every strategy on each SRAM size and compared with the reference interpreter.
void expect_deconv_matches_reference(std::int64_t C, std::int64_t H, std::int64_t W, std::vector<std::uint64_t> srams) {
  GraphBuilder b("deconv");
  b.input("x", {1, C, H, W});
  b.constant("w", {C, 4, 3, 3}, -0.5f, 0.5f);
  b.constant("bias", {4}, -0.2f, 0.2f);
  b.add_tensor("y", {1, 4, 2 * H, 3 * W});
  Node& n = b.node("up", "ConvTranspose", {"x", "w", "bias"}, {"y"});
  n.attrs["strides"] = std::vector<std::int64_t>{2, 3};
  n.attrs["pads"] = std::vector<std::int64_t>{1, 1, 1, 1};
  n.attrs["output_padding"] = std::vector<std::int64_t>{1, 2};
  b.add_tensor("r", {1, 4, 2 * H, 3 * W});
  b.node("relu", "Relu", {"y"}, {"r"});
  b.output("r");
  const std::vector<float> xv = test::random_values(std::size_t(C * H * W), 3);
  compiler::RefTensorMap in;
  in["x"].shape = {1, C, H, W};
  in["x"].f = xv;
  const std::vector<double> ref = test::to_double(compiler::run_reference(b.g, in).at("r").f);
  for (std::uint64_t sram : srams) {
    const HwConfig hw = test::fp32_hw(sram);
    for (const std::string& s : compiler::builtin_strategy_names()) {
      const auto c = compiler::compile(b.g, hw, compiler::builtin_strategy(s));
      const auto r = test::run_forked(c, hw, {{"x", xv}}, true);
      ASSERT_TRUE(r.ok) << s << " " << sram << ": " << r.error;
      EXPECT_LT(test::rel_err(r.outputs.at("r"), ref), 1e-5) << s << " " << sram;
    }
  }
}

TEST(ConvTransposeData, PaddedStridedDeconvMatchesTheReferenceUnderEveryStrategy) {
  // x [1,6,7,5]: zero insertion [6,13,13] (35 + 169 elements a plane): whole planes per tile,
  // 2 of them at 4 KiB of SRAM, all at 1 MiB.
  expect_deconv_matches_reference(6, 7, 5, {4096, 1u << 20});
}

TEST(ConvTransposeData, LargePlaneZeroInsertionInRowBands) {
  // x [1,1,30,30]: zero insertion [1,59,88] (900 + 5192 elements) does not fit 16 KiB (about
  // 2000 elements a buffer), so the tiles are bands of input rows (2 x 88 output elements each).
  expect_deconv_matches_reference(1, 30, 30, {16384});
}

}  // namespace
