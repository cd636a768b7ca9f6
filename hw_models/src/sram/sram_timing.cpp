#include "npu/hw/sram/sram_timing.hpp"

#include "npu/hw/sram/sram_interleave.hpp"

#include <algorithm>
#include <stdexcept>

namespace npu::hw {

SramTiming::SramTiming(const SramConfig& cfg, bool ideal) : cfg_(cfg), ideal_(ideal) {
  if (cfg.capacity_bytes == 0 || cfg.banks <= 0 || cfg.bytes_per_cycle <= 0 || cfg.latency_cycles < 0) {
    throw std::invalid_argument("SramTiming: sram.capacity_bytes, banks and bytes_per_cycle must be positive");
  }
  bank_bytes_ = cfg.capacity_bytes / std::uint64_t(cfg.banks);
  if (cfg.capacity_bytes % std::uint64_t(cfg.banks) != 0 || cfg.bank_interleave_bytes == 0 ||
      bank_bytes_ % cfg.bank_interleave_bytes != 0) {
    throw std::invalid_argument("SramTiming: sram.banks must divide capacity_bytes and bank_interleave_bytes must "
                                "divide the bank size");
  }
  read_ports_.resize(std::size_t(cfg.banks));
  write_ports_.resize(std::size_t(cfg.banks));
}

bool SramTiming::in_range(std::uint64_t addr, std::uint64_t bytes) const {
  return addr <= cfg_.capacity_bytes && bytes <= cfg_.capacity_bytes - addr;
}

SramAccessResult SramTiming::access(std::uint64_t request_cycle, std::uint64_t addr, std::uint64_t bytes,
                                    bool write) {
  SramAccessResult r;
  if (!in_range(addr, bytes)) {
    r.ok = false;
    return r;
  }
  r.start_cycle = r.done_cycle = request_cycle;
  if (bytes == 0) return r;
  ++stats_.accesses;
  (write ? stats_.write_bytes : stats_.read_bytes) += bytes;
  if (ideal_) return r;

  const std::uint64_t bpc = std::uint64_t(cfg_.bytes_per_cycle);
  std::uint64_t latest_start = request_cycle, latest_end = request_cycle;
  for_each_sram_bank_share(addr, bytes, cfg_.bank_interleave_bytes, std::uint64_t(cfg_.banks),
                           [&](std::uint64_t b, std::uint64_t share) {
                             const std::uint64_t busy = (share + bpc - 1) / bpc;
                             Calendar& cal = write ? write_ports_[b] : read_ports_[b];
                             const std::uint64_t s = cal.first_gap(request_cycle, busy);
                             cal.reserve(s, s + busy);
                             latest_start = std::max(latest_start, s);
                             latest_end = std::max(latest_end, s + busy);
                           });
  r.start_cycle = latest_start;
  r.conflict_cycles = latest_start - request_cycle;
  r.done_cycle = latest_end + std::uint64_t(cfg_.latency_cycles);
  stats_.conflict_cycles += r.conflict_cycles;
  return r;
}

void SramTiming::retire_before(std::uint64_t cycle) {
  for (auto* ports : {&read_ports_, &write_ports_}) {
    for (Calendar& cal : *ports) {
      cal.retire_before(cycle);
    }
  }
}

}  // namespace npu::hw
