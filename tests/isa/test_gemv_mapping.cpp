// Decode's GEMV on a systolic array (isa/cost/gemv_mapping.hpp, docs/timing.md "GEMV"): every
// cycle count derived by hand from the formulas (R x C array, L lanes, K' = K here):
//   weight_stationary  ceil(K/R) * ceil(N/C) folds of 2R + C + M - 2   (SCALE-Sim systolic_compute_ws.py)
//   output_stationary  ceil(M/R) * ceil(N/C) folds of R + C + K - 2    (SCALE-Sim systolic_compute_os.py)
//   vector_unit        ceil(N/L) * M * K
#include <gtest/gtest.h>

#include "npu/isa/cost/gemv_mapping.hpp"

namespace npu {
namespace {

MacArrayConfig array32(GemvMapping m, Dataflow df = Dataflow::WeightStationary) {
  MacArrayConfig a;
  a.rows = a.cols = 32;
  a.dataflow = df;
  a.gemv_mapping = m;
  return a;
}

TEST(GemvMapping, OneByKByNOnA32x32ArrayByHand) {
  // M = 1, K = N = 64, 32 x 32 array, 32 lanes.
  const isa::GemvChoice c = isa::gemm_mapping(1, 64, 64, array32(GemvMapping::Auto), 32);
  // WS: 2 * 2 = 4 folds of 2*32 + 32 + 1 - 2 = 95 cycles -> 380.
  EXPECT_EQ(c.ws_cycles, 380);
  // OS: 1 * 2 = 2 folds of 32 + 32 + 64 - 2 = 126 cycles -> 252.
  EXPECT_EQ(c.os_cycles, 252);
  // Vector unit: ceil(64/32) * 1 * 64 = 128.
  EXPECT_EQ(c.vector_cycles, 128);
  EXPECT_TRUE(c.applies);
  EXPECT_EQ(c.mapping, GemvMapping::VectorUnit);  // auto: the fewest
  EXPECT_EQ(c.cycles, 128);
}

TEST(GemvMapping, WeightStationaryUtilisationIsAboutOneOverTheFoldLength) {
  // 4096 x 4096 at M = 1 on 32 x 32 (a 7B model's attention projection):
  // WS 128 * 128 folds of 95 = 1,556,480 cycles for 16,777,216 MACs: 16.8M / (1,556,480 * 1024)
  // = 1.05 % of peak (1/95: one input row per fold of R load + R skew + C drain).
  const MacArrayConfig a = array32(GemvMapping::WeightStationary);
  EXPECT_EQ(isa::gemm_cycles(1, 4096, 4096, a, 32), 1556480);
  // OS: 1 * 128 folds of 32 + 32 + 4096 - 2 = 4158 -> 532,224 (C = 32 MACs a cycle at best).
  EXPECT_EQ(isa::gemm_cycles(1, 4096, 4096, array32(GemvMapping::OutputStationary), 32), 532224);
}

TEST(GemvMapping, AutoPicksOutputStationaryWhenTheVectorUnitIsNarrow) {
  // 16 lanes: vector ceil(64/16) * 64 = 256 > OS 252 < WS 380.
  const isa::GemvChoice c = isa::gemm_mapping(1, 64, 64, array32(GemvMapping::Auto), 16);
  EXPECT_EQ(c.vector_cycles, 256);
  EXPECT_EQ(c.mapping, GemvMapping::OutputStationary);
  EXPECT_EQ(c.cycles, 252);
}

TEST(GemvMapping, DataflowDefaultAndLargeMKeepTheArraysDataflow) {
  // Default `dataflow`: the WS fold as before, 380.
  const isa::GemvChoice d = isa::gemm_mapping(1, 64, 64, array32(GemvMapping::Dataflow), 32);
  EXPECT_FALSE(d.applies);
  EXPECT_EQ(d.cycles, 380);
  // M = 2 > gemv_max_m = 1: WS 4 folds of 2*32 + 32 + 2 - 2 = 96 -> 384, whatever the mapping.
  EXPECT_EQ(isa::gemm_cycles(2, 64, 64, array32(GemvMapping::VectorUnit), 32), 384);
  // gemv_max_m = 8 takes batch-8 decode: vector ceil(64/32) * 8 * 64 = 1024.
  MacArrayConfig a = array32(GemvMapping::VectorUnit);
  a.gemv_max_m = 8;
  EXPECT_EQ(isa::gemm_cycles(8, 64, 64, a, 32), 1024);
}

TEST(GemvMapping, WeightStationaryOnAnOutputStationaryArray) {
  // An OS array told to run GEMVs weight-stationary takes the WS fold: 380 (first test).
  EXPECT_EQ(isa::gemm_cycles(1, 64, 64, array32(GemvMapping::WeightStationary, Dataflow::OutputStationary), 32), 380);
}

TEST(GemvMapping, MacsPerPePacksKInEveryMapping) {
  // macs_per_pe_per_cycle 2: K' = 32. WS 1 * 2 folds of 95 = 190; OS 2 folds of 32+32+32-2 = 94
  // -> 188; vector 2 * 1 * 32 = 64.
  MacArrayConfig a = array32(GemvMapping::Auto);
  a.macs_per_pe_per_cycle = 2;
  const isa::GemvChoice c = isa::gemm_mapping(1, 64, 64, a, 32);
  EXPECT_EQ(c.ws_cycles, 190);
  EXPECT_EQ(c.os_cycles, 188);
  EXPECT_EQ(c.vector_cycles, 64);
}

}  // namespace
}  // namespace npu
