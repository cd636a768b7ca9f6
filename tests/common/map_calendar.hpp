// The std::map calendar SramTiming kept before SramCalendar (its first_gap and reserve restated),
// the reference the SRAM calendar and SRAM timing tests compare against: disjoint half-open
// cycle intervals, start -> end.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>

namespace npu::test {

using MapCalendar = std::map<std::uint64_t, std::uint64_t>;

/// First s >= from with [s, s + length) free: from the last interval starting at or before s,
/// over the later ones while they overlap (touching intervals may be merged or not).
inline std::uint64_t map_first_gap(const MapCalendar& cal, std::uint64_t from, std::uint64_t length) {
  std::uint64_t s = from;
  auto it = cal.upper_bound(s);
  if (it != cal.begin() && std::prev(it)->second > s) s = std::prev(it)->second;
  for (; it != cal.end() && it->first < s + length; ++it) s = std::max(s, it->second);
  return s;
}

/// Reserve [start, end) (free), merged with a neighbour it touches.
inline void map_reserve(MapCalendar& cal, std::uint64_t start, std::uint64_t end) {
  auto next = cal.lower_bound(start);
  const bool joins_next = next != cal.end() && next->first == end;
  if (next != cal.begin() && std::prev(next)->second == start) {
    auto prev = std::prev(next);
    prev->second = joins_next ? next->second : end;
    if (joins_next) cal.erase(next);
    return;
  }
  if (joins_next) {
    end = next->second;
    next = cal.erase(next);
  }
  cal.emplace_hint(next, start, end);
}

}  // namespace npu::test
