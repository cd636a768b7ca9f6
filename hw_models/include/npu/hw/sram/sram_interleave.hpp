// Address -> bank mapping of the SRAM scratchpad: low-order interleaving (no SystemC).
//
// Byte `a` lies in granule a / G and bank (a / G) mod N, for G = sram.bank_interleave_bytes
// and N = sram.banks: consecutive G-byte granules go to consecutive banks, and inside a bank
// its granules are stored one after another (bank-internal address (a / G / N) x G + a mod G),
// so the bytes an access leaves in one bank are contiguous in that bank and move through its
// port as one run. G = capacity / N gives contiguous banks (granule index < N, bank = granule).
// This is the textbook low-order ("word") interleaving of memory banks (Hennessy & Patterson,
// Computer Architecture, 5th ed., section 2.3 / appendix B, "banked/interleaved memory").
// docs/timing.md "SRAM".
#pragma once

#include <algorithm>
#include <cstdint>

namespace npu::hw {

/// Bank of byte `addr` for granule `granule_bytes` (> 0) and `banks` (> 0) banks.
inline std::uint64_t sram_bank_of(std::uint64_t addr, std::uint64_t granule_bytes, std::uint64_t banks) {
  return (addr / granule_bytes) % banks;
}

/// Calls f(bank, bytes) once for every bank holding some of [addr, addr + bytes), giving how
/// many of those bytes it holds (sum = bytes). Cost O(min(banks, granules touched)): an access
/// spanning more than `banks` granules is split by counting, not by walking its granules.
/// Banks are visited in increasing granule order (short access) or bank order (long access),
/// deterministic either way. Nothing is called for bytes == 0. Requires granule_bytes > 0 and
/// banks > 0 (callers validate the config).
template <class F>
void for_each_sram_bank_share(std::uint64_t addr, std::uint64_t bytes, std::uint64_t granule_bytes,
                              std::uint64_t banks, F&& f) {
  if (bytes == 0) return;
  const std::uint64_t end = addr + bytes;
  const std::uint64_t g0 = addr / granule_bytes, g1 = (end - 1) / granule_bytes;
  if (g1 - g0 < banks) {  // at most one granule per bank
    for (std::uint64_t g = g0; g <= g1; ++g) {
      const std::uint64_t lo = std::max(addr, g * granule_bytes), hi = std::min(end, (g + 1) * granule_bytes);
      f(g % banks, hi - lo);
    }
    return;
  }
  // Granules in [0, x) that map to bank i: x / N full rounds plus one if the partial round
  // reaches bank i.
  auto granules_below = [banks](std::uint64_t x, std::uint64_t i) { return x / banks + (x % banks > i ? 1 : 0); };
  const std::uint64_t head_trim = addr - g0 * granule_bytes;       // unused start of the first granule
  const std::uint64_t tail_trim = (g1 + 1) * granule_bytes - end;  // unused end of the last granule
  for (std::uint64_t i = 0; i < banks; ++i) {
    std::uint64_t b = (granules_below(g1 + 1, i) - granules_below(g0, i)) * granule_bytes;
    if (i == g0 % banks) b -= head_trim;
    if (i == g1 % banks) b -= tail_trim;
    f(i, b);
  }
}

}  // namespace npu::hw
