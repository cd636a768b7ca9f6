// int8 AveragePool with count_include_pad=1 over padding (POOL avg_pad, docs/functional.md "int8
// execution"): the padding's taps are the input's zero point (real value 0, POOL zp=IN,IN) and the
// sum is divided by kh x kw with the rounding of int8 avg (half away from zero): Inception-v3's
// 3x3 stride-1 pad-1 pools, which had no int8 rule.
#include <gtest/gtest.h>

#include "int8_test_util.hpp"
#include "npu/hw/functional/data_path.hpp"
#include "npu/hw/functional/int8_ops.hpp"
#include "test_compile_graphs.hpp"

using namespace npu;

namespace {

// POOL `op` 3x3, stride 1, pad 1 on one 3x3 channel of codes 10, 20, ..., 90 (row-major).
std::vector<std::int8_t> pool_3x3(isa::PoolOp op, int pad_zp) {
  hw::BackingStore ddr{"DDR", 1 << 12};
  hw::DataPath dp{ddr, 1 << 16, DType::Int8};
  const std::vector<std::int8_t> x{10, 20, 30, 40, 50, 60, 70, 80, 90};
  dp.sram().write(0, x.data(), x.size());
  isa::PoolParams p;
  p.op = op;
  p.in_addr = 0, p.out_addr = 0x100;
  p.c = 1, p.h_in = 3, p.w_in = 3, p.kh = 3, p.kw = 3;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
  p.requant.in_zp = p.requant.out_zp = pad_zp;  // zp=IN,IN without requant: the padding's code
  hw::functional::pool_int8(p, dp.sram());
  std::vector<std::int8_t> y(9);
  dp.sram().read(0x100, y.data(), y.size());
  return y;
}

}  // namespace

TEST(Int8AvgPad, ThePaddingCountsAsTheZeroPointByHand) {
  // pad_zp -5: every window's 9 taps, the padding's each -5, divided by 9 rounding half away:
  //   y[0,0]: 10 + 20 + 40 + 50 = 120 inside, 5 padding taps -25 -> 95 / 9 = 10.56 -> 11
  //   y[0,1]: 10 + 20 + 30 + 40 + 50 + 60 = 210, 3 x -5 -> 195 / 9 = 21.67 -> 22
  //   y[1,1]: 10 + ... + 90 = 450 -> 50
  //   y[2,2]: 50 + 60 + 80 + 90 = 280, -25 -> 255 / 9 = 28.33 -> 28
  // As reals (s (q - zp), the padding 0.0): y[0,0] = s (120 + 4 x 5) / 9 = 15.56 s -> code
  // -5 + 15.56 = 10.56, the same value: avg_pad on the zero point is fp32's avg_pad on the grid.
  const std::vector<std::int8_t> y = pool_3x3(isa::PoolOp::AvgPad, -5);
  EXPECT_EQ(y[0], 11);
  EXPECT_EQ(y[1], 22);
  EXPECT_EQ(y[4], 50);
  EXPECT_EQ(y[8], 28);
  // avg (count_include_pad=0) divides by the taps inside: 120 / 4 = 30, 210 / 6 = 35.
  const std::vector<std::int8_t> a = pool_3x3(isa::PoolOp::Avg, 0);
  EXPECT_EQ(a[0], 30);
  EXPECT_EQ(a[1], 35);
}

namespace {

// x [1, 3, 6, 6] -> Conv 1x1 3 -> 4 with bias -> AveragePool 3x3 s1 pads 1 count_include_pad 1
// (Inception-v3's branch pool) -> Conv 1x1 4 -> 4 -> y.
compiler::Graph inception_pool() {
  compiler::testing::GraphBuilder b("avgpad");
  b.input("x", {1, 3, 6, 6});
  const std::string c = b.conv("reduce", "x", 4, 1, 1, 0, 1, true);
  b.add_tensor("pool.out", {1, 4, 6, 6});
  compiler::Node& n = b.node("pool", "AveragePool", {c}, {"pool.out"});
  n.attrs["kernel_shape"] = std::vector<std::int64_t>{3, 3};
  n.attrs["strides"] = std::vector<std::int64_t>{1, 1};
  n.attrs["pads"] = std::vector<std::int64_t>{1, 1, 1, 1};
  n.attrs["count_include_pad"] = std::int64_t{1};
  b.output(b.conv("proj", "pool.out", 4, 1, 1, 0, 1, true));
  return b.g;
}

}  // namespace

TEST(Int8AvgPad, InceptionPoolIsBitExactWithTheIntegerReferenceUnderEveryStrategy) {
  const compiler::Graph g = inception_pool();
  const HwConfig hw = load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  // The pool's input grid has a zero point other than 0 (the Conv's output range is not
  // symmetric), so counting the padding as 0 instead of the zero point would differ.
  const compiler::Graph qg =
      compiler::quantize_graph(g, compiler::builtin_strategy("none"), compiler::generate_calibration(g, 3, 4)).graph;
  ASSERT_TRUE(qg.tensors.at("reduce.out").quant);
  EXPECT_NE(qg.tensors.at("reduce.out").quant->zero_point.at(0), 0);
  npu::test::expect_int8_bit_exact_under_every_strategy(g, hw, 3, 4);
}
