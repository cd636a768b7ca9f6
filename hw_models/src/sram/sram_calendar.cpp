#include "npu/hw/sram/sram_calendar.hpp"

#include <algorithm>

namespace npu::hw {

std::size_t SramCalendar::upper_bound(std::uint64_t s) const {
  return std::size_t(std::upper_bound(v_.begin() + std::ptrdiff_t(head_), v_.end(), s,
                                      [](std::uint64_t x, const Interval& i) { return x < i.first; }) -
                     v_.begin());
}

std::size_t SramCalendar::lower_bound(std::uint64_t s) const {
  return std::size_t(std::lower_bound(v_.begin() + std::ptrdiff_t(head_), v_.end(), s,
                                      [](const Interval& i, std::uint64_t x) { return i.first < x; }) -
                     v_.begin());
}

std::uint64_t SramCalendar::first_gap(std::uint64_t from, std::uint64_t length) const {
  // At or after the last reservation's start (a DMA's lines arrive in time order): every
  // start is <= from, so the search below ends at the back; skip the binary search.
  if (head_ == v_.size()) return from;
  if (from >= v_.back().first) return std::max(from, v_.back().second);
  std::uint64_t s = from;
  std::size_t it = upper_bound(s);
  if (it != head_ && v_[it - 1].second > s) s = v_[it - 1].second;
  while (it != v_.size() && v_[it].first < s + length) {
    s = std::max(s, v_[it].second);
    ++it;
  }
  return s;
}

void SramCalendar::reserve(std::uint64_t start, std::uint64_t end) {
  // After the last reservation's start (the common case, see first_gap): lower_bound is the
  // end, so the interval joins the back or is appended; the general path below gives the same.
  if (head_ == v_.size() || start > v_.back().first) {
    if (head_ != v_.size() && v_.back().second == start) {
      v_.back().second = end;
    } else {
      v_.push_back(Interval{start, end});
    }
    return;
  }
  // Merge with a neighbour that touches, so back-to-back bursts keep the calendar short.
  std::size_t next = lower_bound(start);
  const bool joins_next = next != v_.size() && v_[next].first == end;
  if (next != head_) {
    Interval& prev = v_[next - 1];
    if (prev.second == start) {
      if (joins_next) {
        prev.second = v_[next].second;
        v_.erase(v_.begin() + std::ptrdiff_t(next));
      } else {
        prev.second = end;
      }
      return;
    }
  }
  if (joins_next) {
    v_[next].first = start;  // extend the next interval backwards
    return;
  }
  v_.insert(v_.begin() + std::ptrdiff_t(next), Interval{start, end});
}

void SramCalendar::retire_before(std::uint64_t cycle) {
  while (head_ != v_.size() && v_[head_].second <= cycle) ++head_;
  if (head_ == v_.size()) {
    v_.clear();
    head_ = 0;
  } else if (head_ >= 64 && head_ * 2 >= v_.size()) {  // compact: amortised O(1) per interval
    v_.erase(v_.begin(), v_.begin() + std::ptrdiff_t(head_));
    head_ = 0;
  }
}

}  // namespace npu::hw
