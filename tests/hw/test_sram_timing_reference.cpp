// SramTiming::access against the SRAM model of docs/timing.md restated from its definition:
// byte a lies in bank (a / G) mod N; the bytes an access leaves in bank i hold that bank's
// port for ceil(share_i / bytes_per_cycle) cycles from the first gap at or after the request
// cycle; the access starts at the latest bank start and is done latency cycles after the
// latest bank end. The reference walks the access granule by granule and keeps each port's
// reservations in a std::map (touching intervals left unmerged). Random accesses (short and long, reads and writes, requests
// behind and ahead of each other) on power-of-two configs (the shift-and-mask path, every
// preset) and on configs with other sizes (the division path) give the same start, done and
// conflict cycles.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <random>
#include <vector>

#include "map_calendar.hpp"
#include "npu/hw/sram/sram_timing.hpp"

namespace npu::hw {
namespace {

using PortIntervals = npu::test::MapCalendar;  // start -> end, disjoint

struct ReferenceSram {
  SramConfig cfg;
  std::vector<PortIntervals> read, write;

  explicit ReferenceSram(const SramConfig& c) : cfg(c), read(std::size_t(c.banks)), write(std::size_t(c.banks)) {}

  SramAccessResult access(std::uint64_t request, std::uint64_t addr, std::uint64_t bytes, bool is_write) {
    std::vector<std::uint64_t> share(std::size_t(cfg.banks), 0);
    const std::uint64_t g_bytes = cfg.bank_interleave_bytes, end = addr + bytes;
    for (std::uint64_t g = addr / g_bytes; g * g_bytes < end; ++g)
      share[g % std::uint64_t(cfg.banks)] += std::min(end, (g + 1) * g_bytes) - std::max(addr, g * g_bytes);
    SramAccessResult r;
    std::uint64_t latest_start = request, latest_end = request;
    for (std::size_t b = 0; b < share.size(); ++b) {
      if (share[b] == 0) continue;
      const std::uint64_t busy = (share[b] + std::uint64_t(cfg.bytes_per_cycle) - 1) / std::uint64_t(cfg.bytes_per_cycle);
      PortIntervals& port = is_write ? write[b] : read[b];
      const std::uint64_t s = npu::test::map_first_gap(port, request, busy);
      port[s] = s + busy;
      latest_start = std::max(latest_start, s);
      latest_end = std::max(latest_end, s + busy);
    }
    r.start_cycle = latest_start;
    r.conflict_cycles = latest_start - request;
    r.done_cycle = latest_end + std::uint64_t(cfg.latency_cycles);
    return r;
  }

  void retire_before(std::uint64_t cycle) {
    for (auto* ports : {&read, &write})
      for (PortIntervals& p : *ports)
        for (auto it = p.begin(); it != p.end();) it = it->second <= cycle ? p.erase(it) : std::next(it);
  }
};

SramConfig sram_config(std::uint64_t capacity, int banks, std::uint64_t granule, int bytes_per_cycle) {
  SramConfig c;
  c.capacity_bytes = capacity;
  c.banks = banks;
  c.bank_interleave_bytes = granule;
  c.bytes_per_cycle = bytes_per_cycle;
  c.latency_cycles = 2;
  return c;
}

void expect_same_as_reference(const SramConfig& cfg, std::uint64_t seed) {
  SramTiming timing(cfg);
  ReferenceSram reference(cfg);
  std::mt19937_64 rng(seed);
  std::uint64_t now = 0;
  for (int step = 0; step < 4000; ++step) {
    if (rng() % 40 == 0) {
      now += rng() % 64;
      timing.retire_before(now);
      reference.retire_before(now);
      continue;
    }
    // Mostly DMA-line-sized accesses at or after `now`, some long ones spanning every bank.
    const std::uint64_t bytes = rng() % 8 == 0 ? 1 + rng() % (cfg.capacity_bytes / 4) : 1 + rng() % 2048;
    const std::uint64_t addr = rng() % (cfg.capacity_bytes - bytes + 1);
    const std::uint64_t request = now + rng() % 32;
    const bool is_write = rng() % 2 == 0;
    const SramAccessResult got = timing.access(request, addr, bytes, is_write);
    const SramAccessResult want = reference.access(request, addr, bytes, is_write);
    ASSERT_TRUE(got.ok);
    ASSERT_EQ(got.start_cycle, want.start_cycle) << "step " << step << " addr " << addr << " bytes " << bytes;
    ASSERT_EQ(got.done_cycle, want.done_cycle) << "step " << step;
    ASSERT_EQ(got.conflict_cycles, want.conflict_cycles) << "step " << step;
  }
}

TEST(SramTimingReference, PowerOfTwoInterleavedBanksMatchTheDefinition) {
  expect_same_as_reference(sram_config(64 * 1024, 16, 64, 32), 11);   // 16 banks of 64 B granules
  expect_same_as_reference(sram_config(64 * 1024, 4, 256, 128), 12);  // bursts wider than a port
}

TEST(SramTimingReference, PowerOfTwoContiguousBanksMatchTheDefinition) {
  expect_same_as_reference(sram_config(64 * 1024, 8, 8 * 1024, 64), 13);  // granule = bank size
}

TEST(SramTimingReference, OtherSizesMatchTheDefinition) {
  // 12 banks of 48-B granules, 24 B per cycle: none a power of two (the division path).
  expect_same_as_reference(sram_config(12 * 48 * 96, 12, 48, 24), 14);
  // Power-of-two granule and banks, a 96-B port: the division path too.
  expect_same_as_reference(sram_config(64 * 1024, 16, 64, 96), 15);
}

}  // namespace
}  // namespace npu::hw
