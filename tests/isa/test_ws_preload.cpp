// Gemmini's weight-stationary mechanisms (isa/cost/ws_preload.hpp, docs/timing.md "Gemmini's
// mechanisms"): cycles worked out by hand on a 2x2 array, a 3x3 kernel and two tiles.
#include <gtest/gtest.h>

#include "npu/isa/cost/gemv_mapping.hpp"
#include "npu/isa/cost/systolic_fold.hpp"
#include "npu/isa/cost/ws_preload.hpp"

namespace {

using npu::ConvMapping;
using npu::MacArrayConfig;
using npu::WeightPreload;

MacArrayConfig array(int r, int c, ConvMapping mapping, WeightPreload preload) {
  MacArrayConfig a;
  a.rows = r, a.cols = c;
  a.conv_mapping = mapping;
  a.weight_preload = preload;
  return a;
}

TEST(WsPreload, OneBlockOnTwoByTwo) {
  // GEMM 2x2 by 2x2 on a 2x2 array: one weight block. First preload 2R - 1 = 3 (2 cycles to
  // read the block, 1 to shift it down), 2 rows streamed = 2, drain R + C - 2 = 2: 7.
  const auto a = array(2, 2, ConvMapping::Im2col, WeightPreload::DoubleBuffered);
  EXPECT_EQ(npu::isa::ws_gemm_cycles(2, 2, 2, a), 7);
  // Without preload: SCALE-Sim's fold 2R + C + T - 2 = 4 + 2 + 2 - 2 = 6.
  EXPECT_EQ(npu::isa::ws_gemm_cycles(2, 2, 2, array(2, 2, ConvMapping::Im2col, WeightPreload::None)), 6);
}

TEST(WsPreload, TwoBlocksOverlapTheSecondPreload) {
  // k = 4 on 2 rows: 2 blocks of 2 streamed rows each. The second block's weights shift in
  // while the first streams: 2 x 2 + 3 + 2 = 9, against 2 folds x 6 = 12 without preload.
  EXPECT_EQ(npu::isa::ws_gemm_cycles(2, 2, 4, array(2, 2, ConvMapping::Im2col, WeightPreload::DoubleBuffered)), 9);
  EXPECT_EQ(npu::isa::ws_gemm_cycles(2, 2, 4, array(2, 2, ConvMapping::Im2col, WeightPreload::None)), 12);
}

TEST(WsPreload, ThreeByThreeKernelChannelsOnRows) {
  // Conv 3x3, c_in 1 -> c_out 2, 2x2 output on a 2x2 array.
  // channels_on_rows: 9 taps x ceil(1/2) x ceil(2/2) = 9 blocks (one of the 2 rows used), each
  // 2 output rows of 2 pixels: 2 + 2 - 2 (last instruction) + 2 (next preload) = 4 cycles;
  // 9 x 4 + 3 + 2 = 41.
  const auto rows = array(2, 2, ConvMapping::ChannelsOnRows, WeightPreload::DoubleBuffered);
  EXPECT_EQ(npu::isa::conv_tile_cycles(1, 2, 2, 1, 2, 3, 3, rows), 41);
  // im2col: K = 9 -> ceil(9/2) = 5 blocks of one 4-pixel segment (4 cycles): 5 x 4 + 5 = 25.
  const auto im2col = array(2, 2, ConvMapping::Im2col, WeightPreload::DoubleBuffered);
  EXPECT_EQ(npu::isa::conv_tile_cycles(1, 2, 2, 1, 2, 3, 3, im2col), 25);
  // channels_on_rows without preload: 9 SCALE-Sim folds of 2R + C + T - 2 = 4 + 2 + 4 - 2 = 8: 72.
  EXPECT_EQ(npu::isa::conv_tile_cycles(1, 2, 2, 1, 2, 3, 3, array(2, 2, ConvMapping::ChannelsOnRows, WeightPreload::None)),
            72);
}

TEST(WsPreload, PartialInstructionsAndThePreloadBound) {
  // 8x8 array, one output row of 15 pixels: instructions of 8 and 7 rows; the last one of the
  // block waits for the next preload (8): 8 + 8 = 16 cycles per block.
  EXPECT_EQ(npu::isa::preload_block_cycles(1, 15, 8), 16);
  // Two rows of 15: 8 + 7 + 8 + 8 = 31.
  EXPECT_EQ(npu::isa::preload_block_cycles(2, 15, 8), 31);
  // A row of 3 pixels: an instruction occupies at least 4 cycles (ONNXim MAX(compute_size, 4));
  // two rows: 4 + 8 = 12.
  EXPECT_EQ(npu::isa::preload_block_cycles(2, 3, 8), 12);
  // A GEMV (m = 1): every block costs the R = 8 cycles of its preload. 512 x 1000 on 8x8:
  // 64 x 125 blocks x 8 + 15 + 14 = 64029 (Gemmini RTL: 66360 cycles for this layer).
  EXPECT_EQ(npu::isa::ws_gemm_cycles(1, 1000, 512, array(8, 8, ConvMapping::Im2col, WeightPreload::DoubleBuffered)),
            64029);
}

TEST(WsPreload, DefaultsAreScaleSim) {
  // Default options: every cost is SCALE-Sim's fold, whatever the shape.
  MacArrayConfig a;
  a.rows = 8, a.cols = 4;
  EXPECT_FALSE(npu::isa::ws_mechanisms(a));
  EXPECT_EQ(npu::isa::ws_gemm_cycles(37, 11, 29, a),
            npu::isa::systolic_fold(37, 11, 29, 8, 4, npu::Dataflow::WeightStationary).cycles());
  EXPECT_EQ(npu::isa::conv_tile_cycles(1, 5, 7, 3, 9, 3, 3, a), npu::isa::conv_array_cycles(1, 35, 3, 9, 9, a));
  EXPECT_EQ(npu::isa::gemm_cycles(37, 11, 29, a, 4),
            npu::isa::systolic_fold(37, 11, 29, 8, 4, npu::Dataflow::WeightStationary).cycles());
  // The mechanisms belong to weight-stationary arrays: an OS array ignores them.
  a.dataflow = npu::Dataflow::OutputStationary;
  a.weight_preload = WeightPreload::DoubleBuffered;
  EXPECT_FALSE(npu::isa::ws_mechanisms(a));
}

}  // namespace
