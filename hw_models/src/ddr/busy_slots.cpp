#include "npu/hw/ddr/busy_slots.hpp"

#include <algorithm>

namespace npu::hw {

void BusySlots::insert_past_end(Tick t) {
  const std::uint64_t offset = std::uint64_t(t - base_);
  while ((offset >> 6) >= words_.size() && words_.size() < kMaxWords) grow();
  if ((offset >> 6) >= words_.size()) {
    far_.insert(t);
    return;
  }
  words_[(head_ + (offset >> 6)) & (words_.size() - 1)] |= std::uint64_t(1) << (offset & 63);
}

void BusySlots::grow() {
  std::vector<std::uint64_t> bigger(words_.size() * 2, 0);
  for (std::size_t i = 0; i < words_.size(); ++i) bigger[i] = words_[(head_ + i) & (words_.size() - 1)];
  words_.swap(bigger);
  head_ = 0;
}

void BusySlots::move_base(Tick floor) {
  const Tick new_base = floor - (floor & 63);  // floor >= 0: round down to a multiple of 64
  if (new_base <= base_) return;
  const std::uint64_t shift = std::uint64_t(new_base - base_) >> 6;
  if (shift >= words_.size()) {
    std::fill(words_.begin(), words_.end(), 0);
    head_ = 0;
  } else {
    for (std::uint64_t i = 0; i < shift; ++i) {
      words_[head_] = 0;
      head_ = (head_ + 1) & (words_.size() - 1);
    }
  }
  base_ = new_base;
  // Overflow ticks the ring now covers move into it (the overflow keeps only ticks past its end).
  const Tick end = base_ + Tick(words_.size()) * 64;
  while (!far_.empty() && *far_.begin() < end) {
    const Tick t = *far_.begin();
    far_.erase(far_.begin());
    if (t >= base_) insert(t);
  }
}

}  // namespace npu::hw
