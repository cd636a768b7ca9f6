#include "npu/sim/run/exclusive_cycles.hpp"

#include <algorithm>
#include <stdexcept>

namespace npu::sim {

std::vector<std::uint64_t> exclusive_cycles(std::vector<OwnedInstruction> instructions, std::uint64_t total_cycles,
                                            std::size_t owners) {
  std::vector<std::uint64_t> cycles(owners, 0);
  if (instructions.empty()) return cycles;
  for (const auto& in : instructions)
    if (in.owner >= owners) throw std::invalid_argument("exclusive_cycles: an instruction's owner is out of range");
  // Program order: position p in `by_index` is the p-th oldest instruction.
  std::sort(instructions.begin(), instructions.end(),
            [](const OwnedInstruction& a, const OwnedInstruction& b) { return a.index < b.index; });
  std::vector<std::size_t> by_end(instructions.size());
  for (std::size_t i = 0; i < by_end.size(); ++i) by_end[i] = i;
  std::stable_sort(by_end.begin(), by_end.end(),
                   [&](std::size_t a, std::size_t b) { return instructions[a].end_cycle < instructions[b].end_cycle; });
  // Sweep the end times: between two of them the set of unfinished instructions, and so its
  // oldest member, does not change; the oldest only moves forward in program order.
  std::vector<bool> finished(instructions.size(), false);
  std::size_t oldest = 0, last_owner = instructions.front().owner;
  std::uint64_t t = 0;
  for (std::size_t k = 0; k < by_end.size();) {
    const std::uint64_t end = std::min(instructions[by_end[k]].end_cycle, total_cycles);
    if (end > t) cycles[instructions[oldest].owner] += end - t, t = end;
    last_owner = instructions[oldest].owner;
    const std::uint64_t group_end = instructions[by_end[k]].end_cycle;
    for (; k < by_end.size() && instructions[by_end[k]].end_cycle == group_end; ++k) finished[by_end[k]] = true;
    while (oldest < finished.size() && finished[oldest]) ++oldest;
  }
  if (total_cycles > t) cycles[last_owner] += total_cycles - t;
  return cycles;
}

}  // namespace npu::sim
