// CONV acc_in / acc_out on the data path (docs/isa.md "CONV partial sums"), values by hand.
#include <gtest/gtest.h>

#include <vector>

#include "npu/hw/functional/ops.hpp"
#include "npu/hw/memory/backing_store.hpp"

namespace {

using npu::hw::BackingStore;
namespace fn = npu::hw::functional;

TEST(FunctionalConvPartialSums, TwoGroupsSumBeforeTheEpilogue) {
  // A 1x1 conv, 2 input channels -> 1, on 1x2 pixels: in ch0 = [1, 2], ch1 = [3, -4], weights
  // [2, 1], bias -1, relu. Group 0 (ch0, w 2) writes partial sums [2, 4] (acc_out, no bias,
  // no relu). Group 1 (ch1, w 1) starts from them: [2 + 3, 4 - 4] = [5, 0], then bias -> [4, -1]
  // and relu -> [4, 0], the unsplit conv's result.
  BackingStore sram("SRAM", 4096, 256);
  sram.write_f32(0, {1, 2});
  sram.write_f32(64, {3, -4});
  sram.write_f32(128, {2});
  sram.write_f32(192, {1});
  sram.write_f32(256, {-1});
  npu::isa::ConvParams p;
  p.c_in = p.c_out = 1;
  p.h_in = 1, p.w_in = 2;
  p.in_addr = 0, p.w_addr = 128, p.out_addr = 512;
  p.acc_out = true, p.acc_out_addr = 1024;
  sram.write_f32(512, {7, 7});  // `out` is not written by a CONV with acc_out
  fn::conv(p, sram);
  EXPECT_EQ(sram.read_f32(1024, 2), (std::vector<float>{2, 4}));
  EXPECT_EQ(sram.read_f32(512, 2), (std::vector<float>{7, 7}));
  p.in_addr = 64, p.w_addr = 192;
  p.acc_out = false;
  p.acc_in = true, p.acc_in_addr = 1024;
  p.epilogue.has_bias = true, p.epilogue.bias_addr = 256;
  p.epilogue.act = npu::isa::ActOp::Relu;
  fn::conv(p, sram);
  EXPECT_EQ(sram.read_f32(512, 2), (std::vector<float>{4, 0}));
}

}  // namespace
