#include "npu/hw/ddr/ddr_stats.hpp"

#include <cmath>

namespace npu::hw {

void DdrStats::add_read_latency_growing(Tick latency_ck) {
  read_latency_sum_ck += std::uint64_t(latency_ck);
  std::size_t bucket = std::size_t(latency_ck < kHistogramCapCk ? latency_ck : kHistogramCapCk);
  if (bucket >= read_latency_histogram.size()) {
    read_latency_histogram.resize(std::max(bucket + 1, read_latency_histogram.size() * 2), 0);
  }
  ++read_latency_histogram[bucket];
}

Tick DdrStats::read_latency_percentile_ck(double p) const {
  if (reads == 0) return 0;
  // Nearest rank: the ceil(p/100 * N)-th smallest latency.
  auto rank = std::uint64_t(std::ceil(p / 100.0 * double(reads)));
  if (rank < 1) rank = 1;
  std::uint64_t seen = 0;
  for (std::size_t l = 0; l < read_latency_histogram.size(); ++l) {
    seen += read_latency_histogram[l];
    if (seen >= rank) return Tick(l);
  }
  return Tick(read_latency_histogram.size()) - 1;
}

}  // namespace npu::hw
