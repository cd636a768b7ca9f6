// The rules between sections: the SRAM holds one minimal tile and splits evenly into banks
// and interleaving granules; the DMA burst is a whole number of DDR bursts.
#include "load/loader.hpp"

namespace npu::config_loader {
namespace {

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
}

}  // namespace npu::config_loader
