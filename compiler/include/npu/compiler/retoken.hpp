// Dependency tokens from the program's data, for a whole program: every token and SYNC is
// dropped and the tokens that keep each conflicting pair of instructions in program order are
// added back. Used after a rewrite that moves work between queues (SRAM residency turns
// LOAD/STORE into compute-queue MOVEs, sram_residency.hpp), where the tokens codegen and
// cross-layer pipelining paired by count no longer match. docs/compiler.md, "SRAM residency".
#pragma once

#include "npu/isa/instruction.hpp"

namespace npu::compiler {

/// Rewrites `program`'s tokens so that the program runs as its instruction list read in order
/// would, with as much overlap between the load, compute and store queues as its memory
/// accesses allow:
///  - every SYNC is removed and every wait/push cleared;
///  - for each instruction I on queue q and each other queue p, I waits for the latest earlier
///    instruction J of p that conflicts with it (unless an earlier wait of q on p already
///    covers J): J pushes token p2q, I waits on it. Two instructions conflict when they touch
///    overlapping SRAM bytes (isa::sram_operands, sized by the program's dtype) or DDR bytes
///    (isa::ddr_rows of a LOAD and a STORE) and at least one of them writes; a HOST touches
///    everything (the host's DDR accesses are not described).
/// The n-th wait of p2q then meets exactly its own push (pushes go on strictly later p
/// instructions, in q's order), and every dependency points backwards in the list, so the
/// queues cannot deadlock. Cost: O(operands x log ranges) per instruction (interval maps of the
/// last reader and writer per queue). The result passes isa::check_program,
/// isa::check_dataflow and isa::check_sram_races whenever the list read in order is correct.
void retoken(isa::Program& program);

}  // namespace npu::compiler
