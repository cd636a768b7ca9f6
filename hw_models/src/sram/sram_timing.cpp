#include "npu/hw/sram/sram_timing.hpp"

#include "npu/hw/sram/sram_interleave.hpp"

#include <algorithm>
#include <stdexcept>

namespace npu::hw {

namespace {
/// log2(v) for a power of two v, else -1.
int pow2_shift(std::uint64_t v) { return v != 0 && (v & (v - 1)) == 0 ? __builtin_ctzll(v) : -1; }
}  // namespace

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
  const int granule_shift = pow2_shift(cfg.bank_interleave_bytes), bank_shift = pow2_shift(std::uint64_t(cfg.banks)),
            bpc_shift = pow2_shift(std::uint64_t(cfg.bytes_per_cycle));
  pow2_ = granule_shift >= 0 && bank_shift >= 0 && bpc_shift >= 0;
  granule_shift_ = pow2_ ? granule_shift : 0;
  bpc_shift_ = pow2_ ? bpc_shift : 0;
  bank_mask_ = std::uint64_t(cfg.banks) - 1;
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
  std::vector<Calendar>& ports = write ? write_ports_ : read_ports_;
  auto book = [&](std::uint64_t b, std::uint64_t busy) {
    const std::uint64_t s = ports[b].book(request_cycle, busy);
    latest_start = std::max(latest_start, s);
    latest_end = std::max(latest_end, s + busy);
  };
  if (pow2_ && (addr + bytes - 1) >> granule_shift_ < (addr >> granule_shift_) + std::uint64_t(cfg_.banks)) {
    // At most one granule a bank, power-of-two sizes (every preset): for_each_sram_bank_share's
    // short-access walk with shifts and masks for its divisions.
    const std::uint64_t end = addr + bytes;
    for (std::uint64_t g = addr >> granule_shift_, g1 = (end - 1) >> granule_shift_; g <= g1; ++g) {
      const std::uint64_t lo = std::max(addr, g << granule_shift_), hi = std::min(end, (g + 1) << granule_shift_);
      book(g & bank_mask_, (hi - lo + bpc - 1) >> bpc_shift_);
    }
  } else {
    for_each_sram_bank_share(addr, bytes, cfg_.bank_interleave_bytes, std::uint64_t(cfg_.banks),
                             [&](std::uint64_t b, std::uint64_t share) { book(b, (share + bpc - 1) / bpc); });
  }
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
