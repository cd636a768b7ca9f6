// The sparse DDR store and the op arithmetic of the data path, called directly (no SystemC).
// Expected values are worked out by hand in the comments.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "npu/hw/functional/data_path.hpp"
#include "npu/hw/functional/ops.hpp"
#include "npu/hw/memory/backing_store.hpp"

namespace {

using npu::hw::BackingStore;
namespace fn = npu::hw::functional;

TEST(BackingStore, SixteenGibDdrCostsOnlyThePagesTouched) {
  // 16 GiB, 64 KiB pages: writing 8 bytes at 1 GiB - 4 straddles pages 16383 and 16384 -> 2
  // pages = 128 KiB of host memory; one byte near the top adds a third.
  BackingStore ddr("DDR", 16ull << 30);
  const unsigned char v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  ddr.write((1ull << 30) - 4, v, 8);
  EXPECT_EQ(ddr.pages_touched(), 2u);
  EXPECT_EQ(ddr.resident_bytes(), 2u * 65536u);
  const unsigned char one = 9;
  ddr.write((16ull << 30) - 1, &one, 1);
  EXPECT_EQ(ddr.pages_touched(), 3u);
  unsigned char back[10] = {};
  ddr.read((1ull << 30) - 5, back, 10);  // one unwritten byte each side reads 0
  const unsigned char want[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 0};
  for (int i = 0; i < 10; ++i) EXPECT_EQ(back[i], want[i]) << i;
  // Reads of untouched memory allocate nothing.
  ddr.read(5ull << 30, back, 10);
  EXPECT_EQ(ddr.pages_touched(), 3u);
}

TEST(BackingStore, AccessPastTheCapacityThrowsNamingTheMemory) {
  BackingStore sram("SRAM", 1024, 256);
  unsigned char b[8] = {};
  EXPECT_THROW(sram.write(1020, b, 8), std::out_of_range);
  try {
    sram.read(1024, b, 1);
    FAIL();
  } catch (const std::out_of_range& e) {
    EXPECT_NE(std::string(e.what()).find("SRAM read of 1 bytes at 0x400"), std::string::npos) << e.what();
  }
  EXPECT_THROW(BackingStore("X", 1024, 1000), std::invalid_argument);  // page size not a power of two
}

TEST(FunctionalDma, LoadFollowsRowsAndPlanesAndStorePacksBack) {
  // DDR holds bytes 0..255 at 0x1000. A 3-D descriptor: rows of 2 elements of 2 bytes (4 B),
  // 3 rows 16 B apart, 2 planes 64 B apart from 0x1002 -> SRAM gets offsets
  // 2..5, 18..21, 34..37, 66..69, 82..85, 98..101 (24 bytes packed).
  BackingStore ddr("DDR", 1 << 20), sram("SRAM", 4096, 256);
  unsigned char bytes[256];
  for (int i = 0; i < 256; ++i) bytes[i] = (unsigned char)i;
  ddr.write(0x1000, bytes, 256);
  npu::isa::DmaDesc d;
  d.ddr_addr = 0x1002;
  d.sram_addr = 100;
  d.elem_bytes = 2;
  d.extent = {2, 3, 2};
  d.ddr_stride_bytes = {16, 64};
  fn::dma(d, true, ddr, sram);
  unsigned char got[24];
  sram.read(100, got, 24);
  const int starts[6] = {2, 18, 34, 66, 82, 98};
  for (int r = 0; r < 6; ++r)
    for (int k = 0; k < 4; ++k) EXPECT_EQ(got[r * 4 + k], starts[r] + k) << r << "," << k;
  // STORE the same packed bytes to another place with the same pattern, then compare.
  d.ddr_addr = 0x8002;
  fn::dma(d, false, ddr, sram);
  unsigned char a[4], b[4];
  ddr.read(0x8000 + 98, a, 4);
  ddr.read(0x1000 + 98, b, 4);
  EXPECT_EQ(0, std::memcmp(a, b, 4));
}

TEST(FunctionalDma, GatherLoadCopiesTheIndexedRowsAndRefusesAnIndexOutsideTheTable) {
  // A table of 10 rows x 4 fp32 at 0x100, row k holding 10k, 10k+1, 10k+2, 10k+3. Indices
  // {2, -1, 0} in SRAM at 0 (int32): rows 2, 9 (-1 + 10, as ONNX Gather), 0 -> SRAM at 0x40:
  // 20..23, 90..93, 0..3.
  BackingStore ddr("DDR", 1 << 20), sram("SRAM", 4096, 256);
  std::vector<float> table(40);
  for (int i = 0; i < 40; ++i) table[std::size_t(i)] = float((i / 4) * 10 + i % 4);
  ddr.write_f32(0x100, table);
  const std::int32_t idx[3] = {2, -1, 0};
  sram.write(0, idx, sizeof idx);
  npu::isa::DmaDesc d;
  d.ddr_addr = 0x100;
  d.sram_addr = 0x40;
  d.elem_bytes = 4;
  d.extent = {4, 3, 1};
  d.ddr_stride_bytes = {16, 0};
  d.gather = true;
  d.index_addr = 0;
  d.gather_rows = 10;
  fn::dma(d, true, ddr, sram);
  const std::vector<float> got = sram.read_f32(0x40, 12);
  const float want[12] = {20, 21, 22, 23, 90, 91, 92, 93, 0, 1, 2, 3};
  for (int i = 0; i < 12; ++i) EXPECT_EQ(got[std::size_t(i)], want[i]) << i;
  const std::int32_t bad = 10;  // one past the last row
  sram.write(4, &bad, 4);
  try {
    fn::dma(d, true, ddr, sram);
    ADD_FAILURE() << "an index outside the table was not refused";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("index 10 (row 1) is outside the table's 10 rows"), std::string::npos) << e.what();
  }
}

TEST(FunctionalDma, GatherLoadWithFp32IndicesReadsIntegralValuesAndNamesAFractionOrAnOutOfRangeOne) {
  // The table of the test above (row k = 10k .. 10k+3). Indices as fp32 values (index_float=4,
  // an index an earlier layer computed at the fp32 activation width): {3.0, -2.0, 9.0} -> rows
  // 3, 8 (-2 + 10), 9 -> 30..33, 80..83, 90..93.
  BackingStore ddr("DDR", 1 << 20), sram("SRAM", 4096, 256);
  std::vector<float> table(40);
  for (int i = 0; i < 40; ++i) table[std::size_t(i)] = float((i / 4) * 10 + i % 4);
  ddr.write_f32(0x100, table);
  sram.write_f32(0, {3.0f, -2.0f, 9.0f});
  npu::isa::DmaDesc d;
  d.ddr_addr = 0x100;
  d.sram_addr = 0x40;
  d.elem_bytes = 4;
  d.extent = {4, 3, 1};
  d.ddr_stride_bytes = {16, 0};
  d.gather = true;
  d.index_addr = 0;
  d.gather_rows = 10;
  d.index_float = 4;
  fn::dma(d, true, ddr, sram);
  const std::vector<float> got = sram.read_f32(0x40, 12);
  const float want[12] = {30, 31, 32, 33, 80, 81, 82, 83, 90, 91, 92, 93};
  for (int i = 0; i < 12; ++i) EXPECT_EQ(got[std::size_t(i)], want[i]) << i;
  auto refused = [&](float v, const std::string& words) {
    sram.write_f32(4, {v});  // index 1
    try {
      fn::dma(d, true, ddr, sram);
      ADD_FAILURE() << v << " was not refused";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  refused(2.5f, "index 2.5 (row 1) is not an integer");
  refused(-11.0f, "index -11 (row 1) is outside the table's 10 rows");  // -11 + 10 = -1 < 0
}

TEST(FunctionalConv, HandComputedTwoByTwoWithPadBiasScaleShiftResidualRelu) {
  // Input 1 channel 2x2 [[1,2],[3,4]], one 2x2 kernel [[1,0],[0,-1]], pad 1 on every side,
  // stride 1 -> 3x3 output: o[y][x] = in[y-1][x-1]*1 + in[y][x]*(-1) (taps outside are 0):
  //   y=0: [0-1, 0-2, 0]     = [-1, -2,  0]
  //   y=1: [0-3, 1-4, 2]     = [-3, -3,  2]
  //   y=2: [0,   3,   4]     = [ 0,  3,  4]
  // Epilogue: +bias 1, *2 + 0.5, + residual (all 1), relu: v -> max(0, (v+1)*2 + 1.5)
  //   [-1,-2,0,-3,-3,2,0,3,4] -> [1.5, 0, 3.5, 0, 0, 7.5, 3.5, 9.5, 11.5]
  BackingStore sram("SRAM", 4096, 256);
  sram.write_f32(0, {1, 2, 3, 4});
  sram.write_f32(64, {1, 0, 0, -1});
  sram.write_f32(128, {1});
  sram.write_f32(192, {2, 0.5f});
  sram.write_f32(256, std::vector<float>(9, 1.0f));
  npu::isa::ConvParams p;
  p.in_addr = 0;
  p.w_addr = 64;
  p.out_addr = 512;
  p.c_in = p.c_out = 1;
  p.h_in = p.w_in = 2;
  p.kh = p.kw = 2;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
  p.epilogue.has_bias = true;
  p.epilogue.bias_addr = 128;
  p.epilogue.has_scale_shift = true;
  p.epilogue.scale_shift_addr = 192;
  p.epilogue.has_residual = true;
  p.epilogue.residual_addr = 256;
  p.epilogue.act = npu::isa::ActOp::Relu;
  fn::conv(p, sram);
  const std::vector<float> want{1.5f, 0, 3.5f, 0, 0, 7.5f, 3.5f, 9.5f, 11.5f};
  EXPECT_EQ(sram.read_f32(512, 9), want);
}

TEST(FunctionalPool, AverageDividesByTapsInsideAndMaxIgnoresPadding) {
  // 1 channel 2x2 [[1,2],[3,4]] with a 2x2 window, stride 1, pad 1 -> 3x3 windows. The corner
  // window (0,0) covers only in[0][0] = 1: avg = 1/1 = 1 (ONNX count_include_pad=0), max = 1.
  // Centre (1,1) covers all four: avg 2.5, max 4. Edge (0,1) covers 1,2: avg 1.5, max 2.
  BackingStore sram("SRAM", 4096, 256);
  sram.write_f32(0, {-1, -2, -3, -4});
  npu::isa::PoolParams p;
  p.op = npu::isa::PoolOp::Max;
  p.c = 1;
  p.h_in = p.w_in = 2;
  p.kh = p.kw = 2;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
  p.out_addr = 256;
  fn::pool(p, sram);  // all inputs negative: padding (not 0) must never win a max
  EXPECT_EQ(sram.read_f32(256, 9), (std::vector<float>{-1, -1, -2, -1, -1, -2, -3, -3, -4}));
  sram.write_f32(0, {1, 2, 3, 4});
  p.op = npu::isa::PoolOp::Avg;
  fn::pool(p, sram);
  EXPECT_EQ(sram.read_f32(256, 9), (std::vector<float>{1, 1.5f, 2, 2, 2.5f, 3, 3, 3.5f, 4}));
  // avg_pad (ONNX count_include_pad=1): every window divides by 2 x 2 = 4, the padding counted
  // as zeros: corner 1/4, edge (1+2)/4, centre 10/4, ...
  p.op = npu::isa::PoolOp::AvgPad;
  fn::pool(p, sram);
  EXPECT_EQ(sram.read_f32(256, 9), (std::vector<float>{0.25f, 0.75f, 0.5f, 1, 2.5f, 1.5f, 0.75f, 1.75f, 1}));
}

TEST(FunctionalAct, SoftmaxRowsLayerNormAndScaleShiftPerChannel) {
  BackingStore sram("SRAM", 4096, 256);
  // softmax of row [0, ln 3] = [1, 3] / 4 = [0.25, 0.75]; second row [5, 5] -> [0.5, 0.5].
  sram.write_f32(0, {0, std::log(3.0f), 5, 5});
  npu::isa::ActParams a;
  a.op = npu::isa::ActOp::Softmax;
  a.elems = 4;
  a.channels = 2;
  a.out_addr = 64;
  fn::act(a, sram);
  const std::vector<float> sm = sram.read_f32(64, 4);
  EXPECT_NEAR(sm[0], 0.25f, 1e-7);
  EXPECT_NEAR(sm[1], 0.75f, 1e-7);
  EXPECT_FLOAT_EQ(sm[2], 0.5f);
  // scale_shift with 2 channels of 2 elements: scale [2, -1], shift [1, 0]:
  // [1, 2 | 3, 4] -> [3, 5 | -3, -4].
  sram.write_f32(0, {1, 2, 3, 4});
  sram.write_f32(128, {2, -1, 1, 0});
  a.op = npu::isa::ActOp::ScaleShift;
  a.param_addr = 128;
  fn::act(a, sram);
  EXPECT_EQ(sram.read_f32(64, 4), (std::vector<float>{3, 5, -3, -4}));
  // layer_norm of row [1, 3] (mean 2, var 1, eps 0): [-1, 1] * gamma [2, 3] + beta [0, 1] = [-2, 4]
  sram.write_f32(0, {1, 3});
  sram.write_f32(128, {2, 3, 0, 1});
  a.op = npu::isa::ActOp::LayerNorm;
  a.elems = 2;
  a.channels = 1;
  a.alpha = 0;
  fn::act(a, sram);
  EXPECT_EQ(sram.read_f32(64, 2), (std::vector<float>{-2, 4}));
}

TEST(FunctionalAct, RmsNormRowsAndTanhGelu) {
  BackingStore sram("SRAM", 4096, 256);
  // rms_norm of rows [3, 4] (mean of squares 12.5) and [1, -1] (1), eps 0, gamma [2, 1]:
  // [3, 4] / sqrt(12.5) * [2, 1] = [1.697056, 1.131371]; [1, -1] * [2, 1] = [2, -1].
  sram.write_f32(0, {3, 4, 1, -1});
  sram.write_f32(128, {2, 1});
  // op, in, out, gamma at param, elems, channels (rows); eps (alpha) 0.
  fn::act(npu::isa::ActParams{npu::isa::ActOp::RmsNorm, 0, 64, 128, 4, 2}, sram);
  const std::vector<float> y = sram.read_f32(64, 4);
  EXPECT_NEAR(y[0], 6.0 / std::sqrt(12.5), 1e-6);
  EXPECT_NEAR(y[1], 4.0 / std::sqrt(12.5), 1e-6);
  EXPECT_FLOAT_EQ(y[2], 2.0f);
  EXPECT_FLOAT_EQ(y[3], -1.0f);
  // gelu_tanh(1) = 0.5 (1 + tanh(0.7978846 x 1.044715)) = 0.8411920; the erf form gives
  // 0.8413447 (0.5 (1 + erf(1/sqrt 2))): the two differ by 1.5e-4, far above fp32 rounding.
  EXPECT_NEAR(fn::activate(npu::isa::ActOp::GeluTanh, 1.0f, 0, 0), 0.8411920, 1e-6);
  EXPECT_NEAR(fn::activate(npu::isa::ActOp::Gelu, 1.0f, 0, 0), 0.8413447, 1e-6);
}

TEST(FunctionalEltwise, BroadcastFollowsBIndex) {
  // a = [1..6] as [1, 2, 3] (C=2, HW=3), b per channel [10, 20]: b_elems 2, b_inner 3 ->
  // [11, 12, 13, 24, 25, 26].
  BackingStore sram("SRAM", 4096, 256);
  sram.write_f32(0, {1, 2, 3, 4, 5, 6});
  sram.write_f32(64, {10, 20});
  npu::isa::EltwiseParams e;
  e.op = npu::isa::EltwiseOp::Add;
  e.b_addr = 64;
  e.out_addr = 128;
  e.elems = 6;
  e.b_elems = 2;
  e.b_inner = 3;
  fn::eltwise(e, sram);
  EXPECT_EQ(sram.read_f32(128, 6), (std::vector<float>{11, 12, 13, 24, 25, 26}));
}

TEST(FunctionalMove, TransposeAndNearestUpsamplingOfAThreeDimensionalTensor) {
  // x = [0..23] as [2, 3, 4] (a, b, c): x[a][b][c] = 12a + 4b + c.
  BackingStore sram("SRAM", 4096, 256);
  std::vector<float> x(24);
  for (int i = 0; i < 24; ++i) x[std::size_t(i)] = float(i);
  sram.write_f32(0, x);
  // Transpose to [4, 3, 2] (c, b, a): out[c][b][a] = x[a][b][c]; indices a, b, c innermost
  // first with in strides 12, 4, 1 and out strides 1, 2, 6.
  npu::isa::MoveParams t;
  t.in_addr = 0, t.out_addr = 256, t.rank = 3;
  t.extent = {2, 3, 4, 1, 1, 1};
  t.in_stride = {12, 4, 1, 0, 0, 0};
  t.out_stride = {1, 2, 6, 0, 0, 0};
  fn::move(t, 4, sram);
  const std::vector<float> tr = sram.read_f32(256, 24);
  for (int c = 0; c < 4; ++c)
    for (int b = 0; b < 3; ++b)
      for (int a = 0; a < 2; ++a) EXPECT_EQ(tr[std::size_t(c * 6 + b * 2 + a)], float(12 * a + 4 * b + c));
  // Nearest 2x upsampling of the 2 planes of 3 x 4 to 6 x 8: out[a][y][x] = x[a][y/2][x/2].
  npu::isa::MoveParams u;
  u.in_addr = 0, u.out_addr = 512, u.rank = 5;
  u.extent = {2, 4, 2, 3, 2, 1};
  u.in_stride = {0, 1, 0, 4, 12, 0};
  u.out_stride = {1, 2, 8, 16, 48, 0};
  fn::move(u, 4, sram);
  const std::vector<float> up = sram.read_f32(512, 96);
  for (int a = 0; a < 2; ++a)
    for (int y = 0; y < 6; ++y)
      for (int xx = 0; xx < 8; ++xx)
        EXPECT_EQ(up[std::size_t(a * 48 + y * 8 + xx)], float(12 * a + 4 * (y / 2) + xx / 2)) << a << y << xx;
}

TEST(FunctionalMove, ZeroClearsTheOutRangeBeforeTheStridedWrite) {
  // Zero insertion of [[1,2],[3,4]] with stride 2: out [[1,0,2],[0,0,0],[3,0,4]] plus one
  // more cleared row of 3 (zero=12); the element after the cleared range keeps its 99.
  BackingStore sram("SRAM", 4096, 256);
  sram.write_f32(0, {1, 2, 3, 4});
  sram.write_f32(256, std::vector<float>(13, 99.0f));
  npu::isa::MoveParams m;
  m.in_addr = 0, m.out_addr = 256, m.rank = 2;
  m.extent = {2, 2, 1, 1, 1, 1};
  m.in_stride = {1, 2, 0, 0, 0, 0};
  m.out_stride = {2, 6, 0, 0, 0, 0};
  m.zero = 12;
  fn::move(m, 4, sram);
  EXPECT_EQ(sram.read_f32(256, 13), (std::vector<float>{1, 0, 2, 0, 0, 0, 3, 0, 4, 0, 0, 0, 99}));
}

TEST(FunctionalMove, Int8BytesIntoAnInnerSliceKeepTheOthers) {
  // Concat along the last axis of [3, 2] and [3, 1] into [3, 3], int8: the first MOVE writes
  // columns 0-1 (out stride 1 then 3), the second column 2; what is between stays.
  BackingStore sram("SRAM", 4096, 256);
  const unsigned char a[6] = {1, 2, 3, 4, 5, 6}, b[3] = {7, 8, 9};
  sram.write(0, a, 6);
  sram.write(16, b, 3);
  npu::isa::MoveParams m;
  m.in_addr = 0, m.out_addr = 64, m.rank = 2;
  m.extent = {2, 3, 1, 1, 1, 1};
  m.in_stride = {1, 2, 0, 0, 0, 0};
  m.out_stride = {1, 3, 0, 0, 0, 0};
  fn::move(m, 1, sram);
  m.in_addr = 16, m.out_addr = 66;
  m.extent = {1, 3, 1, 1, 1, 1};
  m.in_stride = {0, 1, 0, 0, 0, 0};
  fn::move(m, 1, sram);
  unsigned char out[9] = {};
  sram.read(64, out, 9);
  const unsigned char want[9] = {1, 2, 7, 3, 4, 8, 5, 6, 9};
  for (int i = 0; i < 9; ++i) EXPECT_EQ(out[i], want[i]) << i;
}

TEST(DataPath, RefusesFp16ProgramsWithAFix) {
  // fp32 and int8 programs are computed (int8: functional/int8_ops.hpp); fp16 storage is not.
  BackingStore ddr("DDR", 1 << 20);
  EXPECT_NO_THROW(npu::hw::DataPath(ddr, 4096, npu::DType::Int8));
  try {
    npu::hw::DataPath dp(ddr, 4096, npu::DType::Fp16);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("use a config with mac_array.dtype fp32 or int8"), std::string::npos) << e.what();
  }
}

}  // namespace
