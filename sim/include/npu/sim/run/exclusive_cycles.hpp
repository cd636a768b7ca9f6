// Exclusive per-layer cycles: each cycle of a run given to exactly one layer, so that they add
// up to the run's total. A layer's `cycles` (its span, first start to last end) overlap once
// layers are pipelined (cross-layer pipelining, depth-first stacks), and the spans then sum
// to more than the total. docs/experiment.md "layers/<run id>.csv columns".
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace npu::sim {

/// One executed instruction for the attribution: its program index (program order: lower is
/// older), the core cycle at which it finished, and the layer (owner) it belongs to.
struct OwnedInstruction {
  std::size_t index = 0;
  std::uint64_t end_cycle = 0;
  std::size_t owner = 0;
};

/// Cycles of [0, total_cycles) per owner (a vector of `owners` entries): cycle t goes to the
/// owner of the oldest instruction (lowest index) not yet finished at t (end_cycle > t), the
/// instruction the run is waiting on; cycles after the last end go to the owner of the oldest
/// instruction among those that finished last. The entries sum to total_cycles exactly (0 if
/// `instructions` is empty). Pass the instructions that do work (not SYNCs, which only order
/// queues). Throws std::invalid_argument for an owner >= owners (a programming error).
std::vector<std::uint64_t> exclusive_cycles(std::vector<OwnedInstruction> instructions, std::uint64_t total_cycles,
                                            std::size_t owners);

}  // namespace npu::sim
