// Happens-before of a program's instructions: the order the hardware guarantees, from which
// the data-flow checks (DDR: dataflow_check.hpp, SRAM: sram_race_check.hpp) decide whether an
// access is ordered after another one.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "npu/isa/instruction.hpp"

namespace npu::isa {

/// The slot of token `t` in an array of 9: from x 3 + to (queues 0..2; from == to never
/// occurs in a valid program).
inline int token_index(Token t) { return int(t.from) * 3 + int(t.to); }

/// Vector clocks over the three queues (load, compute, store). Happens-before is program
/// order inside each queue (each queue runs its instructions one after another) and, for
/// tokens, the k-th wait on a token comes after the k-th push of that token (counting
/// semaphores, docs/isa.md "Tokens"). A program without any token runs in strict program
/// order, so everything before an instruction happens before it.
struct HappensBefore {
  using Clock = std::array<std::size_t, 3>;  ///< per queue: how many of its instructions happen before
  /// before[i][q]: the number of queue-q instructions (counted from the queue's start) that
  /// complete before instruction i starts. Empty when `complete` is false.
  std::vector<Clock> before;
  /// position[i]: i's index inside its own queue.
  std::vector<std::size_t> position;
  /// Every instruction once, in an order consistent with happens-before (the order a run with
  /// counting semaphores completes them, the queues taken in turn). Empty when not complete.
  std::vector<std::size_t> order;
  /// false when the queues cannot all complete (a deadlock or unbalanced tokens, which
  /// check_program reports): then no order is known.
  bool complete = false;

  /// true if instruction a completes before instruction b starts (a != b; needs `complete`).
  bool precedes(std::size_t a, std::size_t b, const Program& p) const {
    return before[b][std::size_t(p.instructions[a].queue())] > position[a];
  }
};

/// Computes the happens-before relation of `program` in O(instructions x tokens per
/// instruction). Throws nothing.
HappensBefore happens_before(const Program& program);

}  // namespace npu::isa
