// The command-bus slots taken in split-cursor mode (ChannelState::set_split_cursors), as a
// ring of bit words instead of an ordered set: no allocation per command, O(1) insert, and
// the first free slot found a word (64 ticks) at a time.
#pragma once

#include <cstdint>
#include <set>
#include <vector>

#include "npu/hw/ddr/ddr_types.hpp"

namespace npu::hw {

/// A set of ticks >= a floor that only rises. Bit k of the ring covers tick base + k, where
/// base is a multiple of 64. A tick taken past the ring's end doubles the ring, up to
/// kMaxWords words (2^20 ticks); a tick further out (a command far ahead of the slowest
/// cursor, e.g. REFs through a long idle gap) waits in a small ordered overflow set until
/// the floor brings it into the ring. Gives the same answers as std::set<Tick> with every
/// tick below the floor erased: ticks below the floor may stay marked, and are never asked for.
class BusySlots {
 public:
  BusySlots() : words_(kInitialWords, 0) {}

  /// Mark tick t (t >= floor) as taken (inline inside the ring: once a DRAM command).
  void insert(Tick t) {
    const std::uint64_t word = std::uint64_t(t - base_) >> 6;
    if (word < words_.size()) {
      words_[(head_ + word) & (words_.size() - 1)] |= std::uint64_t(1) << ((t - base_) & 63);
      return;
    }
    insert_past_end(t);
  }
  /// First tick >= t (t >= floor) that is not taken.
  Tick first_free(Tick t) const {
    for (;;) {
      const Tick offset = t - base_;
      const std::uint64_t w = std::uint64_t(offset) >> 6;
      if (w >= words_.size()) return first_free_far(t);
      const int bit = int(offset & 63);
      const std::uint64_t free_bits = ~words_[(head_ + w) & (words_.size() - 1)] >> bit;
      if (free_bits != 0) return t + __builtin_ctzll(free_bits);
      t += 64 - bit;
    }
  }
  /// Forget the ticks below `floor` (floor is never lowered; a lower value is ignored).
  void raise_floor(Tick floor) {
    if (floor - (floor & 63) > base_) move_base(floor);  // else the ring's base stays
  }

 private:
  static constexpr std::size_t kInitialWords = 256;  // 16384 ticks: 4 x ChannelState::kLookbackCk
  static constexpr std::size_t kMaxWords = std::size_t(1) << 14;
  void grow();
  /// insert() of a tick at or past the ring's end: grows the ring, else the overflow takes it.
  void insert_past_end(Tick t);
  /// raise_floor() when the floor's word is past the ring's base.
  void move_base(Tick floor);
  /// first_free for a tick at or past the ring's end: only the overflow can hold it.
  Tick first_free_far(Tick t) const {
    for (auto it = far_.lower_bound(t); it != far_.end() && *it == t; ++it) ++t;
    return t;
  }

  std::vector<std::uint64_t> words_;  ///< size a power of two; logical word i at (head_ + i) & mask
  std::size_t head_ = 0;
  Tick base_ = 0;  ///< tick of bit 0 of logical word 0 (a multiple of 64)
  std::set<Tick> far_;  ///< taken ticks at or past the ring's end (usually empty)
};

}  // namespace npu::hw
