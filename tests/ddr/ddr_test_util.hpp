// Helpers shared by the DDR tests.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "npu/hw/ddr/ddr_system.hpp"

namespace npu::hw::test {

/// Byte address of (rank, bankgroup, bank, row, column) on channel 0.
inline std::uint64_t addr_of(const DdrSystem& d, int rank, int bg, int bank, std::int64_t row, std::int64_t column) {
  DramAddress a;
  a.rank = rank;
  a.bankgroup = bg;
  a.bank = bank;
  a.row = row;
  a.column = column;
  return d.mapper().encode(a);
}

/// Offer one request at `at` and run until it is served; returns done - accepted (tCK).
inline Tick serve(DdrSystem& d, std::uint64_t addr, bool is_write, Tick at) {
  auto o = d.offer(addr, is_write, at, nullptr, nullptr, /*track=*/true);
  return d.complete(o) - o.accepted_ck;
}

/// Ticks of the commands `cmd` in `log`, in issue order.
inline std::vector<Tick> ticks_of(const std::vector<DdrCommandRecord>& log, DdrCommand cmd) {
  std::vector<Tick> out;
  for (const auto& r : log)
    if (r.cmd == cmd) out.push_back(r.tick);
  return out;
}

}  // namespace npu::hw::test
