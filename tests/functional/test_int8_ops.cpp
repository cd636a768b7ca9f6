// The int8 arithmetic of the data path (hw_models/include/npu/hw/functional/int8_ops.hpp) on
// hand-computed cases: CONV with padding, input/output zero points, bias, per-channel
// requantisation and clamp; ELTWISE add (TFLite's quantised Add); ACT relu rescale; POOL
// rounding; and the compiler's table derivation (int8_lowering.hpp) for the same numbers.
#include <gtest/gtest.h>

#include <cstring>

#include "npu/compiler/backend/lowering/int8/int8_lowering.hpp"
#include "npu/hw/functional/data_path.hpp"
#include "npu/hw/functional/int8_ops.hpp"

using namespace npu;

namespace {

struct Sram {
  hw::BackingStore ddr{"DDR", 1 << 16};
  hw::DataPath dp{ddr, 1 << 16, DType::Int8};
  void i8(std::uint32_t addr, std::vector<std::int8_t> v) { dp.sram().write(addr, v.data(), v.size()); }
  void i32(std::uint32_t addr, std::vector<std::int32_t> v) { dp.sram().write(addr, v.data(), v.size() * 4); }
  std::vector<std::int8_t> read(std::uint32_t addr, std::size_t n) {
    std::vector<std::int8_t> v(n);
    dp.sram().read(addr, v.data(), n);
    return v;
  }
};

constexpr std::int32_t k2p30 = 1 << 30;

}  // namespace

TEST(Int8Ops, ConvPadsWithTheInputZeroPointAddsBiasRequantisesAndClamps) {
  // Input [1, 1, 2] = {10, -20}, in_zp 2 (reals 8, -22 in units of s_in); weights [1,1,1,3] =
  // {3, -1, 2}; pad left/right 1, so w_out = (2 + 2 - 3) + 1 = 2; bias 100.
  //   out0: taps at x = -1 (padding: real 0, adds nothing), 0, 1: -1*8 + 2*(-22) = -52; + 100 = 48
  //   out1: taps at x = 0, 1, 2 (padding):                       3*8 + -1*(-22) = 46; + 100 = 146
  // M = 0.25 = 0.5 x 2^-1: multiplier 2^30, shift -1. 48 x 0.25 = 12 (exact); 146 x 0.25 = 36.5,
  // rounded half away from zero: 37. + out_zp (-5): 7 and 32; clamp max 30 -> 7, 30.
  // (Padding read as a raw 0 instead of the zero point would add 3*(0-2) = -6 to out0: 42 ->
  // 10.5 -> 11 - 5 = 6.)
  Sram s;
  s.i8(0x0, {10, -20});
  s.i8(0x40, {3, -1, 2});
  s.i32(0x80, {100});
  s.i32(0xc0, {k2p30, -1});
  isa::ConvParams p;
  p.in_addr = 0x0, p.w_addr = 0x40, p.out_addr = 0x100;
  p.c_in = 1, p.h_in = 1, p.w_in = 2, p.c_out = 1, p.kh = 1, p.kw = 3, p.pad_left = 1, p.pad_right = 1;
  p.epilogue.has_bias = true, p.epilogue.bias_addr = 0x80;
  p.epilogue.requant.on = true, p.epilogue.requant.addr = 0xc0;
  p.epilogue.requant.in_zp = 2, p.epilogue.requant.out_zp = -5, p.epilogue.requant.clamp_max = 30;
  isa::Instruction in;
  in.op = isa::Opcode::Conv;
  in.params = p;
  s.dp.execute(in);
  EXPECT_EQ(s.read(0x100, 2), (std::vector<std::int8_t>{7, 30}));
}

TEST(Int8Ops, ConvRequantisesEachOutputChannelWithItsOwnPair) {
  // 1x1 conv, one input value 4 (zp 0), weights {1, 1}: acc 4 in both channels. Channel 0
  // M = 0.5 (2^30, 0): 2; channel 1 M = 2 (2^30, 2): 8.
  Sram s;
  s.i8(0x0, {4});
  s.i8(0x40, {1, 1});
  s.i32(0xc0, {k2p30, 0, k2p30, 2});
  isa::ConvParams p;
  p.in_addr = 0x0, p.w_addr = 0x40, p.out_addr = 0x100;
  p.c_in = 1, p.h_in = 1, p.w_in = 1, p.c_out = 2, p.kh = 1, p.kw = 1;
  p.epilogue.requant.on = true, p.epilogue.requant.addr = 0xc0;
  hw::functional::conv_int8(p, s.dp.sram());
  EXPECT_EQ(s.read(0x100, 2), (std::vector<std::int8_t>{2, 8}));
}

TEST(Int8Ops, AddTableAndAddFollowTfLite) {
  // s_a 0.5, s_b 0.25, s_out 1: twice_max = 1; a multiplier 0.5 = (2^30, 0), b 0.25 = (2^30, -1),
  // out 1 / (2^20 x 1) = 0.5 x 2^-19 = (2^30, -19); left_shift 20.
  const std::vector<std::int32_t> t = compiler::add_table(0.5, 0.25, 1.0);
  EXPECT_EQ(t, (std::vector<std::int32_t>{20, k2p30, 0, k2p30, -1, k2p30, -19}));
  // a = 3 (1.5), b = 2 (0.5): a' = 3 x 2^20 / 2 = 1572864, b' = 2 x 2^20 / 4 = 524288, sum 2^21;
  // 2^21 x 2^-20 = 2 (the real sum 2.0 on the output grid).
  isa::Requant r;
  r.on = true;
  EXPECT_EQ(hw::functional::add_int8(3, 2, r, t.data()), 2);
  // With zero points a_zp 1, b_zp -2, out_zp 10: a = 4, b = 0 are the same reals: 2 + 10 = 12.
  r.in_zp = 1, r.b_zp = -2, r.out_zp = 10;
  EXPECT_EQ(hw::functional::add_int8(4, 0, r, t.data()), 12);
  // Saturation: 100 + 100 on those grids is 50 + 25 = 75 reals -> 75 + 10 = 85; clamp max 80.
  r.clamp_max = 80;
  EXPECT_EQ(hw::functional::add_int8(101, 98, r, t.data()), 80);
}

TEST(Int8Ops, ActReluRescalesAndClampsAtTheOutputZeroPoint) {
  // s_in 0.5 -> s_out 0.25: M = 2 = 0.5 x 2^2: (2^30, 2). in_zp 1, out_zp -3, relu clamp [-3, 127].
  // 5 -> (5 - 1) x 2 - 3 = 5; -7 -> -8 x 2 - 3 = -19 -> -3; 100 -> 99 x 2 - 3 = 195 -> 127.
  Sram s;
  s.i8(0x0, {5, -7, 100});
  s.i32(0x40, {k2p30, 2});
  isa::ActParams a;
  a.op = isa::ActOp::Relu;
  a.in_addr = 0x0, a.out_addr = 0x80, a.elems = 3;
  a.requant.on = true, a.requant.addr = 0x40, a.requant.in_zp = 1, a.requant.out_zp = -3, a.requant.clamp_min = -3;
  hw::functional::act_int8(a, s.dp.sram());
  EXPECT_EQ(s.read(0x80, 3), (std::vector<std::int8_t>{5, -3, 127}));
  // The compiler's clamp for relu on that grid is [max(-128, zp), 127] = [-3, 127].
  int lo = 0, hi = 0;
  ASSERT_TRUE(compiler::activation_clamp(isa::ActOp::Relu, 0, 0, {0.25, -3}, lo, hi));
  EXPECT_EQ(lo, -3);
  EXPECT_EQ(hi, 127);
  // ReLU6 on scale 0.05, zp -128: [-128, -128 + round(6 / 0.05) = -8].
  ASSERT_TRUE(compiler::activation_clamp(isa::ActOp::Clip, 0, 6, {0.05, -128}, lo, hi));
  EXPECT_EQ(lo, -128);
  EXPECT_EQ(hi, -8);
}

TEST(Int8Ops, PoolAverageRoundsHalfAwayFromZeroAndMaxIgnoresPadding) {
  // avg: 5 / 2 = 2.5 -> 3, -5 / 2 -> -3, -4 / 3 = -1.33 -> -1, 300 / 1 saturates to 127.
  EXPECT_EQ(hw::functional::avg_int8(5, 2), 3);
  EXPECT_EQ(hw::functional::avg_int8(-5, 2), -3);
  EXPECT_EQ(hw::functional::avg_int8(-4, 3), -1);
  EXPECT_EQ(hw::functional::avg_int8(300, 1), 127);
  // max 2x2 stride 2 with pad 1 on [-5 -6; -7 -8]: every window holds one value and padding
  // never wins (-5, -6, -7, -8); global_avg of {-5,-6,-7,-8} = -26 / 4 = -6.5 -> -7.
  Sram s;
  s.i8(0x0, {-5, -6, -7, -8});
  isa::PoolParams p;
  p.op = isa::PoolOp::Max;
  p.in_addr = 0x0, p.out_addr = 0x40, p.c = 1, p.h_in = 2, p.w_in = 2, p.kh = 2, p.kw = 2, p.stride_h = 2,
  p.stride_w = 2, p.pad_top = 1, p.pad_left = 1, p.pad_bottom = 1, p.pad_right = 1;
  hw::functional::pool_int8(p, s.dp.sram());
  EXPECT_EQ(s.read(0x40, 4), (std::vector<std::int8_t>{-5, -6, -7, -8}));
  p.op = isa::PoolOp::GlobalAvg;
  hw::functional::pool_int8(p, s.dp.sram());
  EXPECT_EQ(s.read(0x40, 1), (std::vector<std::int8_t>{-7}));
}

TEST(Int8Ops, BatchNormalizationRunsAsAPerChannelAffineMapLikeADepthwiseConv) {
  // An unfolded BN on x grid (0.5, zp 1) -> y grid (0.25, zp -3), eps 1 (batchnorm_int8):
  //  channel 0: gamma 2, var 3 -> a = 2 / sqrt(3 + 1) = 1; B 0.5, mean 1 -> shift 0.5 - 1 = -0.5.
  //    s_w = 1/127, w = 127, b = round(-0.5 / (0.5 / 127)) = -127, M = 0.5 (1/127) / 0.25 = 2/127.
  //  channel 1: gamma -2, var 0 -> a = -2; B 0, mean 0 -> shift 0: s_w = 2/127, w = -127, b = 0,
  //    M = 0.5 (2/127) / 0.25 = 4/127.
  compiler::Graph g;
  auto constant = [&](const std::string& name, std::vector<float> v) {
    compiler::Tensor t;
    t.name = name;
    t.shape = {std::int64_t(v.size())};
    t.is_constant = true;
    t.float_data = std::move(v);
    g.tensors[name] = t;
  };
  constant("gamma", {2, -2});
  constant("beta", {0.5f, 0});
  constant("mean", {1, 0});
  constant("var", {3, 0});
  compiler::Node bn;
  bn.name = "bn";
  bn.op_type = "BatchNormalization";
  bn.inputs = {"x", "gamma", "beta", "mean", "var"};
  bn.attrs["epsilon"] = 1.0f;
  const compiler::Int8ScaleShift ss = compiler::batchnorm_int8(g, bn, {0.5, 1}, {0.25, -3});
  EXPECT_EQ(ss.w, (std::vector<std::int32_t>{127, -127}));
  EXPECT_EQ(ss.b, (std::vector<std::int32_t>{-127, 0}));
  // 2/127 = (64/127) x 2^-5: multiplier round(2^31 x 64/127) = 1082196484, shift -5; 4/127 the
  // same multiplier, shift -4.
  EXPECT_EQ(ss.pairs, (std::vector<std::int32_t>{1082196484, -5, 1082196484, -4}));
  // Reals: channel 0 x = 5 -> (5-1) 0.5 = 2 -> y = 1.5 -> 1.5/0.25 - 3 = 3; x = 127 -> 63 -> 62.5
  // -> 247 saturates to 127. Channel 1 x = 5 -> 2 -> y = -4 -> -16 - 3 = -19; x = -7 -> -4 -> y = 8
  // -> 29. Integer: acc 4 x 127 - 127 = 381, 381 x 2/127 = 6 (the fixed-point product is
  // 191.99999999 / 2^5 before rounding: 192 / 32 = 6), + zp -3 = 3; channel 1: -508 x 4/127 = -16
  // -> -19, 1016 x 4/127 = 32 -> 29 (each channel must use its own pair: channel 0's would give
  // -8 - 3 = -11 and 13).
  Sram s;
  s.i8(0x0, {5, 127, 5, -7});
  std::vector<std::int32_t> wb = ss.w;
  wb.insert(wb.end(), ss.b.begin(), ss.b.end());
  s.i32(0x40, wb);
  s.i32(0x80, ss.pairs);
  isa::ActParams a;
  a.op = isa::ActOp::ScaleShift;
  a.in_addr = 0x0, a.out_addr = 0xc0, a.elems = 4, a.channels = 2, a.param_addr = 0x40;
  a.requant.on = true, a.requant.addr = 0x80, a.requant.in_zp = 1, a.requant.out_zp = -3;
  hw::functional::act_int8(a, s.dp.sram());
  EXPECT_EQ(s.read(0xc0, 4), (std::vector<std::int8_t>{3, 127, -19, 29}));
}

TEST(Int8Ops, GlobalAveragePoolOnItsOwnGridIsTfLiteMean) {
  // x grid (0.5, zp 2), y grid (0.1, zp -10), plane 2x2: M = 0.5 / (0.1 x 4) = 1.25 = 0.625 x 2^1:
  // multiplier round(0.625 x 2^31) = 1342177280, shift 1.
  const std::vector<std::int32_t> t = compiler::global_avg_table(0.5, 0.1, 4);
  EXPECT_EQ(t, (std::vector<std::int32_t>{1342177280, 1}));
  // Values {3, 4, 6, 10}: reals (1, 2, 4, 8) x 0.5 = 0.5, 1, 2, 4, mean 1.875 -> 18.75 on y, + zp
  // -10 = 8.75 -> 9. Integer: sum (x - 2) = 15, 15 x 1.25 = 18.75 -> 19 (MBQM: 30 x 0.625 = 18.75,
  // rounded to nearest) - 10 = 9. Second channel {-128 x 4}: sum -520, x 1.25 = -650 -> -128.
  Sram s;
  s.i8(0x0, {3, 4, 6, 10, -128, -128, -128, -128});
  s.i32(0x40, t);
  isa::PoolParams p;
  p.op = isa::PoolOp::GlobalAvg;
  p.in_addr = 0x0, p.out_addr = 0x80, p.c = 2, p.h_in = 2, p.w_in = 2;
  p.requant.on = true, p.requant.addr = 0x40, p.requant.in_zp = 2, p.requant.out_zp = -10;
  hw::functional::pool_int8(p, s.dp.sram());
  EXPECT_EQ(s.read(0x80, 2), (std::vector<std::int8_t>{9, -128}));
  // requant belongs to global_avg only: a max pool with one is refused, not guessed.
  p.op = isa::PoolOp::Max;
  EXPECT_THROW(hw::functional::pool_int8(p, s.dp.sram()), std::invalid_argument);
}

TEST(Int8Ops, ElementwiseFunctionsRunByTableAndMulFollowsTfLite) {
  // Sigmoid from grid (1/16, zp 0) to (1/256, zp -128) (TFLite's int8 Logistic output grid):
  //   q = 0:    x = 0,  sigmoid 0.5        -> 128 on the grid - 128 = 0
  //   q = 16:   x = 1,  0.7310586 x 256 = 187.15 -> 187 - 128 = 59
  //   q = -128: x = -8, 0.000335 x 256 = 0.086  -> 0 - 128 = -128
  //   q = 127:  x = 7.94, 0.99964 x 256 = 255.9 -> 256 - 128 = 128, saturated to 127
  compiler::Graph g;
  compiler::Node sig;
  sig.name = "sig";
  sig.op_type = "Sigmoid";
  sig.inputs = {"x"};
  sig.outputs = {"y"};
  const std::vector<std::int8_t> lut = compiler::int8_lut(g, sig, {1.0 / 16, 0}, {1.0 / 256, -128});
  ASSERT_EQ(lut.size(), 256u);
  EXPECT_EQ(lut[0 + 128], 0);
  EXPECT_EQ(lut[16 + 128], 59);
  EXPECT_EQ(lut[0], -128);
  EXPECT_EQ(lut[255], 127);
  // The ACT reads the table at requant: out = clamp(lut[x + 128]); clamp min 10 lifts the -128.
  Sram s;
  s.i8(0x0, {0, 16, -128});
  s.dp.sram().write(0x100, lut.data(), lut.size());
  isa::ActParams a;
  a.op = isa::ActOp::Sigmoid;
  a.in_addr = 0x0, a.out_addr = 0x40, a.elems = 3;
  a.requant.on = true, a.requant.addr = 0x100, a.requant.clamp_min = 10;
  hw::functional::act_int8(a, s.dp.sram());
  EXPECT_EQ(s.read(0x40, 3), (std::vector<std::int8_t>{10, 59, 10}));
  // Mul: s_a 0.5, s_b 0.25, s_out 0.25 -> M = 0.5 = (2^30, 0). a = 3 (zp 1: real 1.0), b = -2
  // (zp 0: real -0.5): product -0.5 -> -2 on the output grid, + zp 3 = 1; integer (3-1)(-2) = -4,
  // x 0.5 = -2, + 3 = 1. Saturation: 127 x 127 x 0.5 = 8064.5 -> 127.
  const std::vector<std::int32_t> t = compiler::mul_table(0.5, 0.25, 0.25);
  EXPECT_EQ(t, (std::vector<std::int32_t>{k2p30, 0}));
  isa::Requant r;
  r.on = true, r.in_zp = 1, r.out_zp = 3;
  EXPECT_EQ(hw::functional::mul_int8(3, -2, r, t[0], t[1]), 1);
  r.in_zp = 0, r.out_zp = 0;
  EXPECT_EQ(hw::functional::mul_int8(127, 127, r, t[0], t[1]), 127);
}

TEST(Int8Ops, InstructionsWithoutAnInt8RuleAreRefusedNotGuessed) {
  Sram s;
  isa::ConvParams p;
  p.c_in = 1, p.h_in = 1, p.w_in = 1, p.c_out = 1;
  try {
    hw::functional::conv_int8(p, s.dp.sram());
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "int8 data path: CONV without a requant operand: int32 accumulators have no int8 result "
              "(docs/functional.md, int8 execution; compile a quantised model for the int8 config)");
  }
  isa::ActParams a;
  a.op = isa::ActOp::Sigmoid;  // without its table
  a.elems = 1;
  EXPECT_THROW(hw::functional::act_int8(a, s.dp.sram()), std::invalid_argument);
  a.op = isa::ActOp::SoftmaxOnline;  // the fused attention's online softmax: no int8 rule
  a.requant.on = true;
  EXPECT_THROW(hw::functional::act_int8(a, s.dp.sram()), std::invalid_argument);
  hw::BackingStore ddr("DDR", 1 << 16);
  EXPECT_THROW(hw::DataPath(ddr, 1 << 16, DType::Fp16), std::invalid_argument);
}
