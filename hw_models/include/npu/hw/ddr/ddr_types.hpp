// Basic vocabulary of the DDR timing core: DRAM-clock ticks, commands, decoded addresses.
// Plain C++ (no SystemC); see docs/ddr.md for how the pieces fit together.
#pragma once

#include <cstdint>

namespace npu::hw {

/// Time in DRAM clock cycles (tCK of the configured DDR clock), counted from tick 0.
using Tick = std::int64_t;

/// "Never" / "not scheduled": far in the future but safe to add timing values to.
inline constexpr Tick kNeverTick = INT64_C(1) << 60;

/// DRAM commands the controller issues (JESD79-4 names). RD/WR carry an auto-precharge
/// flag in closed-page mode instead of being separate commands.
enum class DdrCommand : std::uint8_t { Act, Pre, Rd, Wr, Ref };

const char* to_string(DdrCommand c);  ///< "ACT" | "PRE" | "RD" | "WR" | "REF"

/// A byte address decoded into DRAM coordinates. `column` is the device column of the
/// first beat of the burst (a multiple of the burst length); `flat_bank` numbers every
/// bank of the system: ((channel * ranks + rank) * bank_groups + bankgroup) *
/// banks_per_group + bank.
struct DramAddress {
  int channel = 0;
  int rank = 0;
  int bankgroup = 0;
  int bank = 0;
  std::int64_t row = 0;
  std::int64_t column = 0;
  int flat_bank = 0;

  friend bool operator==(const DramAddress& a, const DramAddress& b) {
    return a.channel == b.channel && a.rank == b.rank && a.bankgroup == b.bankgroup &&
           a.bank == b.bank && a.row == b.row && a.column == b.column;
  }
};

}  // namespace npu::hw
