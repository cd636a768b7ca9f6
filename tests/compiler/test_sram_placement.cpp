// Bank-aware SRAM placement (sram_placement.hpp): offsets derived by hand from the SRAM
// model's bank mapping. Interleave 0 (contiguous banks: bank = ceil(capacity / banks) bytes)
// unless a test says otherwise.
#include <gtest/gtest.h>

#include <stdexcept>

#include "npu/compiler/backend/tiling/sram_placement.hpp"
#include "npu/compiler/backend/tiling/tiling.hpp"

namespace npu::compiler {
namespace {

TEST(SramPlacement, BuffersGetBanksOfTheirOwnWhenTheyFit) {
  // 64 KiB / 8 banks = 8192 B per bank. Sizes 1000, 1000, 3000, 0, 64 need 1+1+1+0+1 = 4
  // banks <= 8, so each non-empty buffer starts at the next free bank: 0, 8192, 16384, 24576.
  // Packed: 0, 1024 (1000 rounded to 64), 2048, then 2048+3000 = 5048 -> 5056 for the empty
  // buffer (where it would start) and for the 64-byte one; packed bytes 5056 + 64 = 5120.
  const SramPlacement p = place_sram_buffers({1000, 1000, 3000, 0, 64}, 64 * 1024, 8, 0, 64);
  EXPECT_TRUE(p.bank_exclusive);
  EXPECT_EQ(p.packed_bytes, 5120u);
  ASSERT_EQ(p.offset.size(), 5u);
  EXPECT_EQ(p.offset[0], 0u);
  EXPECT_EQ(p.offset[1], 8192u);
  EXPECT_EQ(p.offset[2], 16384u);
  EXPECT_EQ(p.offset[3], 5056u);
  EXPECT_EQ(p.offset[4], 24576u);
}

TEST(SramPlacement, ABufferLargerThanABankTakesWholeBanks) {
  // 20000 B needs ceil(20000 / 8192) = 3 banks (0..24575), so the next buffer starts at 24576.
  const SramPlacement p = place_sram_buffers({20000, 100}, 64 * 1024, 8, 0, 64);
  EXPECT_TRUE(p.bank_exclusive);
  EXPECT_EQ(p.offset[0], 0u);
  EXPECT_EQ(p.offset[1], 24576u);
}

TEST(SramPlacement, PackedWhenTheBanksAreTooFew) {
  // Five 9000-byte buffers need 2 banks each = 10 > 8: packed at multiples of 9024 (9000
  // rounded up to 64), ending at 4 x 9024 + 9000 = 45096.
  const SramPlacement p = place_sram_buffers({9000, 9000, 9000, 9000, 9000}, 64 * 1024, 8, 0, 64);
  EXPECT_FALSE(p.bank_exclusive);
  EXPECT_EQ(p.packed_bytes, 45096u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(p.offset[std::size_t(i)], std::uint32_t(i * 9024));
}

TEST(SramPlacement, PackedWithOneBankOrNoCapacity) {
  for (const SramPlacement& p : {place_sram_buffers({100, 100}, 64 * 1024, 1, 0, 64), place_sram_buffers({100, 100}, 0, 8, 0, 64)}) {
    EXPECT_FALSE(p.bank_exclusive);
    EXPECT_EQ(p.offset[0], 0u);
    EXPECT_EQ(p.offset[1], 128u);
    EXPECT_EQ(p.packed_bytes, 228u);
  }
}

TEST(SramPlacement, ShortLastBankIsRespected) {
  // 1000 B in 3 banks: bank = ceil(1000/3) = 334 -> not a multiple of 64: packed. With
  // align 2 (334 = 167 x 2): a 300 B and a 334 B buffer take banks 0 and 1; a third of 334 B
  // would start at 668 and end at 1002 > 1000, so all three stay packed.
  EXPECT_FALSE(place_sram_buffers({300, 334}, 1000, 3, 0, 64).bank_exclusive);
  const SramPlacement two = place_sram_buffers({300, 334}, 1000, 3, 0, 2);
  EXPECT_TRUE(two.bank_exclusive);
  EXPECT_EQ(two.offset[1], 334u);
  EXPECT_FALSE(place_sram_buffers({300, 334, 334}, 1000, 3, 0, 2).bank_exclusive);
}

TEST(SramPlacement, InterleavedGranulesPutSmallBuffersOnBanksOfTheirOwn) {
  // 1 KiB granules over 8 banks (1 MiB): two 100-B buffers need one granule each, so they
  // start at granules 0 and 1 (banks 0 and 1): offsets 0 and 1024 (packed: 0 and 128).
  const SramPlacement p = place_sram_buffers({100, 100}, 1u << 20, 8, 1024, 64);
  EXPECT_TRUE(p.bank_exclusive);
  EXPECT_EQ(p.offset[1], 1024u);
  EXPECT_EQ(p.packed_bytes, 228u);
}

TEST(SramPlacement, FineInterleaveLeavesRealTilesPacked) {
  // 64-B granules (the default): the 1x1 conv tiles below (in 25088 B = 392 granules) need
  // far more than 8 granules, so the layout is the packed one: 0, 25088, 50176. Any buffer of
  // 8 x 64 = 512 B or more covers every bank wherever it starts, so spreading could not
  // separate their ports anyway.
  const SramPlacement p = place_sram_buffers({25088, 25088, 1024}, 1u << 20, 8, 64, 64);
  EXPECT_FALSE(p.bank_exclusive);
  EXPECT_EQ(p.offset[1], 25088u);
  EXPECT_EQ(p.offset[2], 50176u);
  // Granule = alignment: even when the set is small enough to spread (100 + 30 B: 2 + 1
  // granules <= 8) each buffer starts at the next 64-B boundary, which is the packed layout.
  const SramPlacement small = place_sram_buffers({100, 30}, 1u << 20, 8, 64, 64);
  EXPECT_TRUE(small.bank_exclusive);
  EXPECT_EQ(small.offset[1], 128u);
}

TEST(SramPlacement, ZeroAlignmentIsAnError) {
  EXPECT_THROW(place_sram_buffers({1}, 1024, 2, 0, 0), std::invalid_argument);
}

TEST(SramPlacement, ConvLayoutPutsEachTileInItsOwnBank) {
  // 1x1 conv 64 -> 64 channels on 56x56, tiles of 16 channels x 7 rows (weights-resident):
  // in = 64 x 7 x 56 = 25088 B, w = 16 x 64 = 1024 B, params = 8 x 64 = 512 B,
  // out = 16 x 7 x 56 = 6272 B, all changing (two slots). In 1 MiB / 8 banks (131072 B per
  // bank) the 7 buffers need 7 banks: starts at k x 131072 for k = 0..6.
  ConvGeom g;
  g.c_in = g.c_out = 64;
  g.h_in = g.w_in = g.h_out = g.w_out = 56;
  TilingOptions o;
  o.sram_capacity_bytes = 1u << 20;
  o.sram_banks = 8;
  const ConvSramLayout l = conv_sram_layout(g, LoopOrder::WeightsResident, 16, 7, o);
  EXPECT_TRUE(l.bank_exclusive);
  const std::uint32_t bank = 131072;
  EXPECT_EQ(l.in[0], 0 * bank);
  EXPECT_EQ(l.in[1], 1 * bank);
  EXPECT_EQ(l.w[0], 2 * bank);
  EXPECT_EQ(l.w[1], 3 * bank);
  EXPECT_EQ(l.params, 4 * bank);
  EXPECT_EQ(l.out[0], 5 * bank);
  EXPECT_EQ(l.out[1], 6 * bank);
  // Packed size (what must fit): 2 x 25088 + 2 x 1024 + 512 + 6272 + 6272 (all multiples of 64).
  EXPECT_EQ(l.total_bytes, 2u * 25088 + 2 * 1024 + 512 + 2 * 6272);
}

TEST(SramPlacement, PlanCostNeverRisesWhenTheSramDoubles) {
  // plan_conv keeps the plans for smaller capacities as candidates: for C and 2C the chosen
  // plan's estimated time and burst cost (time-based) are at most those at C, for a spread
  // of layer shapes (every tiling that fits C also fits 2C).
  TilingOptions o;
  o.array.rows = o.array.cols = 32;
  o.core_period_ns = 1.0;
  o.ddr_bytes_per_ns = 25.6;
  for (const auto& [cin, hw, cout, k] : std::vector<std::tuple<int, int, int, int>>{
           {64, 56, 64, 1}, {64, 56, 64, 3}, {256, 14, 1024, 1}, {3, 224, 32, 3}, {512, 7, 512, 3}}) {
    ConvGeom g;
    g.c_in = cin;
    g.c_out = cout;
    g.h_in = g.w_in = hw;
    g.kh = g.kw = k;
    g.pad_top = g.pad_left = g.pad_bottom = g.pad_right = k / 2;
    g.h_out = g.w_out = hw;
    double prev = -1;
    std::uint64_t prev_cost = 0;
    for (std::uint64_t cap = 64 * 1024; cap <= 8u * 1024 * 1024; cap *= 2) {
      const auto p = plan_conv(g, cap, o);
      ASSERT_TRUE(p) << cin << "x" << hw << "->" << cout << " k" << k << " at " << cap;
      if (prev >= 0) {
        EXPECT_LE(p->estimated_ns, prev) << cin << "x" << hw << "->" << cout << " k" << k << " at " << cap;
        EXPECT_LE(p->burst_cost_bytes, prev_cost) << cin << "x" << hw << "->" << cout << " k" << k << " at " << cap;
      }
      prev = p->estimated_ns;
      prev_cost = p->burst_cost_bytes;
    }
  }
}

}  // namespace
}  // namespace npu::compiler
