// The reservations of one SRAM port: disjoint half-open cycle intervals, kept sorted in a
// vector (with a moving front) instead of a std::map, so the DMA's per-burst lookups and
// inserts touch contiguous memory and allocate nothing once the vector has grown.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace npu::hw {

/// Disjoint intervals [start, end), sorted by start; touching intervals are merged on insert.
class SramCalendar {
 public:
  /// First cycle s >= from such that [s, s + length) overlaps no reservation.
  std::uint64_t first_gap(std::uint64_t from, std::uint64_t length) const;
  /// Reserve [start, end) (free: the caller found it with first_gap), merged with a
  /// neighbour it touches.
  void reserve(std::uint64_t start, std::uint64_t end);
  /// first_gap then reserve, for `length` >= 1: returns the start s and reserves [s, s + length).
  /// Inline for a request at or after the last reservation's start (a DMA's lines arrive in
  /// time order): the gap is at the back, and the interval joins the last one or is appended,
  /// as the two calls would do.
  std::uint64_t book(std::uint64_t from, std::uint64_t length) {
    if (head_ == v_.size()) {
      v_.push_back(Interval{from, from + length});
      return from;
    }
    Interval& last = v_.back();
    if (from >= last.first && last.second > last.first) {
      const std::uint64_t s = from > last.second ? from : last.second;  // > last.first: reserve's back case
      if (last.second == s) {
        last.second = s + length;
      } else {
        v_.push_back(Interval{s, s + length});
      }
      return s;
    }
    const std::uint64_t s = first_gap(from, length);
    reserve(s, s + length);
    return s;
  }
  /// Forget the reservations that end at or before `cycle`, oldest first.
  void retire_before(std::uint64_t cycle);
  std::size_t size() const { return v_.size() - head_; }

 private:
  using Interval = std::pair<std::uint64_t, std::uint64_t>;  // start, end
  /// Index of the first live interval whose start is > s (upper) or >= s (lower).
  std::size_t upper_bound(std::uint64_t s) const;
  std::size_t lower_bound(std::uint64_t s) const;

  std::vector<Interval> v_;  ///< live intervals are v_[head_, size)
  std::size_t head_ = 0;
};

}  // namespace npu::hw
