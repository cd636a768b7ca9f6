// The rules between sections: the SRAM holds one minimal tile and splits evenly into banks
// and interleaving granules; the DMA burst is a whole number of DDR bursts.
#include "load/loader.hpp"

namespace npu::config_loader {
namespace {

/// Largest dma.burst_bytes (where one DDR burst is not larger): 4096 B, the AXI4 limit of one
/// bus transaction (at most 256 beats, never across a 4 KB boundary: ARM IHI 0022E, AMBA AXI
/// and ACE Protocol Specification, A3.4.1). A 1 GiB burst used to be accepted.
constexpr std::uint64_t kMaxDmaBurstBytes = 4096;

/// Picks the default sram.bank_interleave_bytes (kDefaultSramInterleaveBytes, or contiguous
/// banks when the bank size is not a multiple of it) or checks the given one divides the
/// bank size, so every bank holds whole granules (docs/config.md "sram").
void check_sram_interleave(Loader& in, SramConfig& sram) {
  const std::uint64_t bank = sram.bank_bytes();
  if (sram.bank_interleave_bytes == 0) {
    sram.bank_interleave_bytes = bank % kDefaultSramInterleaveBytes == 0 ? kDefaultSramInterleaveBytes : bank;
    return;
  }
  const std::uint64_t g = sram.bank_interleave_bytes;
  if (g > bank)
    in.fail(in.mark_of("sram.bank_interleave_bytes"),
            fmt::format("'sram.bank_interleave_bytes' = {} bytes is larger than one bank ('sram.capacity' {} / "
                        "'sram.banks' {} = {} bytes)",
                        g, sram.capacity_bytes, sram.banks, bank),
            fmt::format("  a granule must fit in a bank; use at most {} (contiguous banks) or a small power of two "
                        "such as 64 (fine interleaving)",
                        bank));
  if (bank % g != 0)
    in.fail(in.mark_of("sram.bank_interleave_bytes"),
            fmt::format("'sram.bank_interleave_bytes' = {} bytes does not divide the bank size ('sram.capacity' {} / "
                        "'sram.banks' {} = {} bytes)",
                        g, sram.capacity_bytes, sram.banks, bank),
            fmt::format("  every bank holds whole granules; use a divisor of {} such as 64, or {} for contiguous banks",
                        bank, bank));
}

/// A DMA burst is one bus transaction: at most kMaxDmaBurstBytes (the AXI4 4 KB boundary),
/// or one DDR burst where that is larger (docs/config.md "dma").
void check_dma_burst_limit(Loader& in, const HwConfig& cfg) {
  const std::uint64_t ddr_burst = std::uint64_t(cfg.ddr.burst_bytes());
  const std::uint64_t limit = std::max<std::uint64_t>(kMaxDmaBurstBytes, ddr_burst);
  if (std::uint64_t(cfg.dma.burst_bytes) <= limit) return;
  const YAML::Mark& m = in.mark_of("dma.burst_bytes");
  in.fail(m.is_null() ? in.mark_of("ddr.burst_length") : m,
          fmt::format("'dma.burst_bytes' = {} is larger than one bus transaction: at most {} bytes (AXI4: a burst "
                      "is at most 256 beats and never crosses a 4 KB boundary, ARM IHI 0022E A3.4.1), or one DDR "
                      "burst = bus {} bits / 8 x burst_length {} = {} bytes (JESD79-4 / JESD235) where that is larger",
                      cfg.dma.burst_bytes, limit, cfg.ddr.bus_width_bits, cfg.ddr.burst_length, ddr_burst),
          fmt::format("  a DMA request moves one or a few DDR bursts; set dma.burst_bytes to {} (one DDR burst) or a "
                      "multiple of it up to {}",
                      ddr_burst, limit));
}

}  // namespace

void check_cross_section(Loader& in, HwConfig& cfg) {
  const std::uint64_t tile = cfg.min_sram_tile_bytes();
  if (cfg.sram.capacity_bytes < tile) {
    const auto& m = cfg.mac_array;
    in.fail(in.mark_of("sram.capacity"),
            fmt::format("'sram.capacity' = {} bytes is smaller than one minimal tile of {} bytes", cfg.sram.capacity_bytes,
                        tile),
            fmt::format("  minimal tile = 2 x rows x cols x dtype + rows x dtype + cols x 4 = 2 x {} x {} x {} + {} x {} + "
                        "{} x 4 = {} bytes ({} x {} {}); use a larger SRAM or a smaller array",
                        m.rows, m.cols, dtype_bytes(m.dtype), m.rows, dtype_bytes(m.dtype), m.cols, tile, m.rows, m.cols,
                        to_string(m.dtype)));
  }
  if (cfg.sram.capacity_bytes % std::uint64_t(cfg.sram.banks) != 0)
    in.fail(in.mark_of("sram.banks"),
            fmt::format("'sram.capacity' = {} bytes does not split evenly into 'sram.banks' = {}", cfg.sram.capacity_bytes,
                        cfg.sram.banks),
            "  every bank has the same size; choose a bank count that divides the capacity");
  check_sram_interleave(in, cfg.sram);
  const int ddr_burst = cfg.ddr.burst_bytes();
  if (cfg.dma.burst_bytes % ddr_burst != 0) {
    const YAML::Mark& m = in.mark_of("dma.burst_bytes");
    in.fail(m.is_null() ? in.mark_of("ddr.burst_length") : m,
            fmt::format("'dma.burst_bytes' = {} is not a multiple of the DDR burst of {} bytes (bus {} bits / 8 x "
                        "burst_length {})",
                        cfg.dma.burst_bytes, ddr_burst, cfg.ddr.bus_width_bits, cfg.ddr.burst_length),
            fmt::format("  a DRAM moves whole bursts; set dma.burst_bytes to {} or a multiple of it", ddr_burst));
  }
  check_dma_burst_limit(in, cfg);
}

}  // namespace npu::config_loader
