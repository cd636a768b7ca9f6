// Statistics of a DDR model run: traffic, bandwidth, latency, row-buffer outcomes,
// command counts and per-bank counts. Filled by the timing core; read by the tool,
// the NPU driver and the tests. Field meanings and formulas: docs/ddr.md.
#pragma once

#include <cstdint>
#include <vector>

#include "npu/hw/ddr/ddr_types.hpp"

namespace npu::hw {

/// Counts of one bank (flat index, see DramAddress::flat_bank).
struct DdrBankCounts {
  std::uint64_t reads = 0;
  std::uint64_t writes = 0;
  std::uint64_t activates = 0;
};

struct DdrStats {
  // ---- configuration the derived figures need ----
  double tck_ns = 0;      ///< DRAM clock period
  double peak_gbps = 0;   ///< data rate x bus width x channels (1e9 B/s)
  int burst_bytes = 0;    ///< bytes per request (one burst)

  // ---- traffic (one request = one burst) ----
  std::uint64_t reads = 0, writes = 0;
  std::uint64_t bytes_read = 0, bytes_written = 0;

  // ---- row-buffer outcome of each request, decided at its column command ----
  std::uint64_t row_hits = 0;       ///< row already open: column command only
  std::uint64_t row_misses = 0;     ///< bank was closed: ACT + column command
  std::uint64_t row_conflicts = 0;  ///< another row was open: PRE + ACT + column command

  // ---- commands issued ----
  std::uint64_t cmd_act = 0, cmd_pre = 0, cmd_rd = 0, cmd_wr = 0, cmd_ref = 0;
  std::uint64_t auto_precharges = 0;  ///< RDA/WRA in closed-page mode (not in cmd_pre)

  std::vector<DdrBankCounts> per_bank;  ///< indexed by DramAddress::flat_bank

  // ---- time ----
  Tick first_arrival_ck = kNeverTick;  ///< earliest offer tick of any request
  Tick last_done_ck = 0;               ///< latest data-done tick of any request

  // ---- latency (done - offered, in tCK) ----
  std::uint64_t read_latency_sum_ck = 0;
  std::uint64_t write_latency_sum_ck = 0;
  std::vector<std::uint64_t> read_latency_histogram;  ///< [latency in tCK] -> reads

  // ---- derived figures ----
  std::uint64_t requests() const { return reads + writes; }
  std::uint64_t bytes() const { return bytes_read + bytes_written; }
  /// Elapsed DRAM clocks from the first offer to the last data beat (0 if no requests).
  Tick elapsed_ck() const { return requests() == 0 ? 0 : last_done_ck - first_arrival_ck; }
  double elapsed_ns() const { return double(elapsed_ck()) * tck_ns; }
  /// Achieved bandwidth in GB/s (1e9 B/s): bytes / elapsed_ns.
  double achieved_gbps() const { return elapsed_ck() == 0 ? 0.0 : double(bytes()) / elapsed_ns(); }
  double percent_of_peak() const { return peak_gbps > 0 ? 100.0 * achieved_gbps() / peak_gbps : 0.0; }
  double mean_read_latency_ck() const { return reads == 0 ? 0.0 : double(read_latency_sum_ck) / double(reads); }
  double mean_read_latency_ns() const { return mean_read_latency_ck() * tck_ns; }
  double mean_write_latency_ck() const { return writes == 0 ? 0.0 : double(write_latency_sum_ck) / double(writes); }
  /// Nearest-rank percentile of the read latency (p in (0, 100]): the smallest L such
  /// that at least p % of reads took <= L tCK. 0 when there are no reads.
  Tick read_latency_percentile_ck(double p) const;
  double read_latency_percentile_ns(double p) const { return double(read_latency_percentile_ck(p)) * tck_ns; }
  /// row_hits / (hits + misses + conflicts), in [0, 1].
  double row_hit_rate() const {
    std::uint64_t n = row_hits + row_misses + row_conflicts;
    return n == 0 ? 0.0 : double(row_hits) / double(n);
  }
  /// Energy in pJ when a per-byte DDR energy is configured (EnergyConfig::pj_per_ddr_byte).
  double energy_pj(double pj_per_byte) const { return pj_per_byte * double(bytes()); }

  /// Latencies beyond this many tCK share the last histogram bucket (they are counted in the
  /// mean exactly; a percentile that lands there reports the cap).
  static constexpr Tick kHistogramCapCk = Tick(1) << 22;
  /// Record one read latency (the core calls this, once a read: inline for a bucket that exists).
  void add_read_latency(Tick latency_ck) {
    if (latency_ck >= 0 && latency_ck < kHistogramCapCk && std::size_t(latency_ck) < read_latency_histogram.size()) {
      read_latency_sum_ck += std::uint64_t(latency_ck);
      ++read_latency_histogram[std::size_t(latency_ck)];
      return;
    }
    add_read_latency_growing(latency_ck);
  }
  /// add_read_latency past the histogram's end (grows it; latencies over the cap share its last bucket).
  void add_read_latency_growing(Tick latency_ck);
};

}  // namespace npu::hw
