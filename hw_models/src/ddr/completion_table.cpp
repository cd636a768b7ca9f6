#include "npu/hw/ddr/completion_table.hpp"

namespace npu::hw {

void CompletionTable::put(std::uint64_t id, Tick done) {
  if ((count_ + 1) * 2 > slots_.size()) grow();
  const std::size_t mask = slots_.size() - 1;
  std::size_t i = home(id);
  while (slots_[i].id != 0) i = (i + 1) & mask;
  slots_[i] = Slot{id, done};
  ++count_;
}

bool CompletionTable::take(std::uint64_t id, Tick* done) {
  const std::size_t mask = slots_.size() - 1;
  std::size_t i = home(id);
  while (slots_[i].id != id) {
    if (slots_[i].id == 0) return false;
    i = (i + 1) & mask;
  }
  *done = slots_[i].done;
  // Backward-shift deletion: move later entries of the probe run into the hole when the
  // hole lies between their home and their slot, so every lookup still stops at an empty slot.
  std::size_t hole = i;
  for (std::size_t j = (i + 1) & mask; slots_[j].id != 0; j = (j + 1) & mask) {
    const std::size_t h = home(slots_[j].id);
    if (((j - h) & mask) >= ((j - hole) & mask)) {
      slots_[hole] = slots_[j];
      hole = j;
    }
  }
  slots_[hole] = Slot{};
  --count_;
  return true;
}

void CompletionTable::grow() {
  std::vector<Slot> old(slots_.size() * 2);
  old.swap(slots_);
  count_ = 0;
  for (const Slot& s : old)
    if (s.id != 0) put(s.id, s.done);
}

}  // namespace npu::hw
