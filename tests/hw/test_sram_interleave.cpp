// Interleaved SRAM banks (sram_interleave.hpp, sram_timing.hpp): the address -> bank mapping
// and per-bank byte split worked out by hand, and the timing of conflict-free and conflicting
// access patterns, without elaboration.
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>

#include "npu/hw/sram/sram_interleave.hpp"
#include "npu/hw/sram/sram_timing.hpp"

namespace npu::hw {
namespace {

std::map<std::uint64_t, std::uint64_t> shares(std::uint64_t addr, std::uint64_t bytes, std::uint64_t granule,
                                              std::uint64_t banks) {
  std::map<std::uint64_t, std::uint64_t> m;
  for_each_sram_bank_share(addr, bytes, granule, banks, [&](std::uint64_t b, std::uint64_t n) { m[b] += n; });
  return m;
}

TEST(SramInterleave, BankOfAnAddressIsTheGranuleModuloTheBanks) {
  // 64-B granules over 8 banks: bank = (addr / 64) mod 8.
  EXPECT_EQ(sram_bank_of(0, 64, 8), 0u);
  EXPECT_EQ(sram_bank_of(63, 64, 8), 0u);
  EXPECT_EQ(sram_bank_of(64, 64, 8), 1u);
  EXPECT_EQ(sram_bank_of(511, 64, 8), 7u);   // granule 7
  EXPECT_EQ(sram_bank_of(512, 64, 8), 0u);   // granule 8 wraps to bank 0
  EXPECT_EQ(sram_bank_of(1000, 64, 8), 7u);  // granule 15, 15 mod 8 = 7
  // Contiguous banks (granule = bank size 1024 of a 4 KiB SRAM): bank = addr / 1024.
  EXPECT_EQ(sram_bank_of(1023, 1024, 4), 0u);
  EXPECT_EQ(sram_bank_of(3072, 1024, 4), 3u);
}

TEST(SramInterleave, ShortAccessSplitsGranuleByGranule) {
  // [100, 300) with 64-B granules: granules 1..4 -> banks 1..4 with
  // [100,128) 28 B, [128,192) 64 B, [192,256) 64 B, [256,300) 44 B (sum 200).
  const auto m = shares(100, 200, 64, 8);
  EXPECT_EQ(m, (std::map<std::uint64_t, std::uint64_t>{{1, 28}, {2, 64}, {3, 64}, {4, 44}}));
}

TEST(SramInterleave, LongAccessIsCountedPerBank) {
  // [100, 2100): granules 1..32 (2099 / 64 = 32), 32 granules over 8 banks = 4 per bank
  // (bank 0: 8, 16, 24, 32; bank 1: 1, 9, 17, 25; ...), 256 B each, minus the unused head of
  // granule 1 (100 - 64 = 36 B, bank 1) and tail of granule 32 (33 x 64 - 2100 = 12 B, bank 0):
  // bank 0 244 B, bank 1 220 B, banks 2..7 256 B; sum 244 + 220 + 6 x 256 = 2000.
  const auto m = shares(100, 2000, 64, 8);
  ASSERT_EQ(m.size(), 8u);
  EXPECT_EQ(m.at(0), 244u);
  EXPECT_EQ(m.at(1), 220u);
  for (std::uint64_t b = 2; b < 8; ++b) EXPECT_EQ(m.at(b), 256u) << "bank " << b;
}

TEST(SramInterleave, ContiguousGranuleKeepsTheOldMapping) {
  // Granule = bank size 1024, 4 banks: [896, 1280) is 128 B of bank 0 and 256 B of bank 1.
  EXPECT_EQ(shares(896, 384, 1024, 4), (std::map<std::uint64_t, std::uint64_t>{{0, 128}, {1, 256}}));
  EXPECT_TRUE(shares(5, 0, 64, 8).empty());
}

// 4 KiB in 4 banks of 1 KiB, 64 B per cycle per port, 2 cycles latency.
SramConfig cfg(std::uint64_t interleave) {
  SramConfig c;
  c.capacity_bytes = 4096;
  c.banks = 4;
  c.bytes_per_cycle = 64;
  c.latency_cycles = 2;
  c.bank_interleave_bytes = interleave;
  return c;
}

TEST(SramInterleaveTiming, DisjointBanksDoNotConflict) {
  SramTiming s(cfg(64));
  // A: [0, 128) = granules 0, 1 -> banks 0, 1, 64 B each: 1 cycle, done 0 + 1 + 2 = 3.
  // B: [128, 256) = granules 2, 3 -> banks 2, 3: no shared port, also done at 3.
  EXPECT_EQ(s.access(0, 0, 128, false).done_cycle, 3u);
  const auto b = s.access(0, 128, 128, false);
  EXPECT_EQ(b.conflict_cycles, 0u);
  EXPECT_EQ(b.done_cycle, 3u);
}

TEST(SramInterleaveTiming, SameBanksSerialise) {
  SramTiming s(cfg(64));
  s.access(0, 0, 128, false);  // banks 0, 1 read ports busy [0, 1)
  // C: [256, 384) = granules 4, 5 -> banks 0, 1 again (4 mod 4 = 0): waits 1 cycle,
  // start 1, done 1 + 1 + 2 = 4.
  const auto c = s.access(0, 256, 128, false);
  EXPECT_EQ(c.start_cycle, 1u);
  EXPECT_EQ(c.conflict_cycles, 1u);
  EXPECT_EQ(c.done_cycle, 4u);
}

TEST(SramInterleaveTiming, LargeAccessUsesEveryBankWhereContiguousUsesOne) {
  // 1 KiB read at address 0. Interleaved by 64 B: 256 B per bank, 256 / 64 = 4 cycles on
  // all four banks in parallel, done 4 + 2 = 6. Contiguous (granule 1024): all of it in
  // bank 0, 1024 / 64 = 16 cycles, done 16 + 2 = 18.
  SramTiming fine(cfg(64)), contiguous(cfg(1024));
  EXPECT_EQ(fine.access(0, 0, 1024, false).done_cycle, 6u);
  EXPECT_EQ(contiguous.access(0, 0, 1024, false).done_cycle, 18u);
}

TEST(SramInterleaveTiming, TwoLargeReadsShareTheTotalBandwidth) {
  // Two 1 KiB reads requested at 0 ([0, 1024) and [2048, 3072)). Interleaved: each takes 4
  // cycles on every bank, so the second waits for the first: start 4, conflict 4, done
  // 4 + 4 + 2 = 10 (2 KiB at 4 x 64 B per cycle = 8 cycles of port time in total).
  // Contiguous: banks 0 and 2, in parallel, 16 cycles each: both done at 18, no conflict.
  SramTiming fine(cfg(64)), contiguous(cfg(1024));
  fine.access(0, 0, 1024, false);
  const auto f = fine.access(0, 2048, 1024, false);
  EXPECT_EQ(f.conflict_cycles, 4u);
  EXPECT_EQ(f.done_cycle, 10u);
  contiguous.access(0, 0, 1024, false);
  const auto c = contiguous.access(0, 2048, 1024, false);
  EXPECT_EQ(c.conflict_cycles, 0u);
  EXPECT_EQ(c.done_cycle, 18u);
}

TEST(SramInterleaveTiming, TimingDoesNotDependOnCapacityWhenInterleaved) {
  // The same access pattern in a 4 KiB and a 64 KiB SRAM (4 banks, 64-B granules): the
  // bank of every address is the same, so the cycles are too (the property that makes
  // latency independent of the capacity for a fixed program). 3 KiB read at 512: 768 B per
  // bank = 12 cycles, done 14; a 64-B write to bank 1 ([576, 640)) meanwhile: other port, 1
  // cycle, done 3; a 64-B read of [576, 640) waits for bank 1's read port: start 12, done 15.
  for (std::uint64_t cap : {4096u, 65536u}) {
    SramConfig c = cfg(64);
    c.capacity_bytes = cap;
    SramTiming s(c);
    EXPECT_EQ(s.access(0, 512, 3072, false).done_cycle, 14u) << cap;
    EXPECT_EQ(s.access(0, 576, 64, true).done_cycle, 3u) << cap;
    const auto r = s.access(0, 576, 64, false);
    EXPECT_EQ(r.start_cycle, 12u) << cap;
    EXPECT_EQ(r.done_cycle, 15u) << cap;
  }
}

TEST(SramInterleaveTiming, InterleaveMustDivideTheBank) {
  EXPECT_THROW(SramTiming(cfg(0)), std::invalid_argument);
  EXPECT_THROW(SramTiming(cfg(100)), std::invalid_argument);   // 1024 mod 100 = 24
  EXPECT_THROW(SramTiming(cfg(2048)), std::invalid_argument);  // larger than a 1 KiB bank
  EXPECT_NO_THROW(SramTiming(cfg(1)));
}

}  // namespace
}  // namespace npu::hw
