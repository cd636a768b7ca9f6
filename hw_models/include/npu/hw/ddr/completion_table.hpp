// Done ticks of tracked requests, from the column command that served them until
// DdrSystem::complete() takes them: an open-addressing table (linear probing, backward-shift
// deletion) that allocates only when it grows, not per request as std::unordered_map does.
#pragma once

#include <cstdint>
#include <vector>

#include "npu/hw/ddr/ddr_types.hpp"

namespace npu::hw {

/// Map from request id (non-zero) to done tick. Ids are unique while stored.
class CompletionTable {
 public:
  CompletionTable() : slots_(kInitialSlots) {}

  /// Store `done` for `id` (id != 0, not already stored).
  void put(std::uint64_t id, Tick done);
  /// If `id` is stored: write its tick to *done, forget it and return true.
  bool take(std::uint64_t id, Tick* done);
  std::size_t size() const { return count_; }

 private:
  struct Slot {
    std::uint64_t id = 0;  ///< 0: empty
    Tick done = 0;
  };
  static constexpr std::size_t kInitialSlots = 64;
  std::size_t home(std::uint64_t id) const {
    return std::size_t((id * 0x9E3779B97F4A7C15ull) >> 32) & (slots_.size() - 1);  // Fibonacci hashing
  }
  void grow();

  std::vector<Slot> slots_;  ///< size a power of two, at most half full
  std::size_t count_ = 0;
};

}  // namespace npu::hw
