// Dependency tokens from the program's data, for a whole program: every token and SYNC is
// dropped and the tokens that keep each conflicting pair of instructions in program order are
// added back. Used after a rewrite that moves work between queues (SRAM residency turns
// LOAD/STORE into compute-queue MOVEs, sram_residency.hpp), where the tokens codegen and
// cross-layer pipelining paired by count no longer match. docs/compiler.md, "SRAM residency".
#pragma once

#include <vector>

#include "npu/hw_config/hw_config.hpp"
#include "npu/isa/instruction.hpp"

namespace npu::compiler {

/// How derive_tokens orders a LOAD after a STORE and compares DDR bytes.
struct TokenRules {
  /// A LOAD that must follow a STORE waits through a compute-queue SYNC inserted before it
  /// (st2cp, then cp2ld), leaving st2ld to the layer fences and cross-layer pipelining, which
  /// pair their own (a depth-first stack inside a fenced program); else it waits st2ld.
  bool store_to_load_via_sync = false;
  /// DDR conflicts by each LOAD/STORE's whole span [ddr_addr, ddr_addr + ddr_span_bytes())
  /// rather than by its rows (isa::ddr_rows).
  bool ddr_by_span = false;
};

/// Adds to the straight-line list `code` (program order a valid sequential order) the tokens
/// that keep every conflicting pair of instructions on different queues in list order: each
/// instruction I on queue q waits, per other queue p, for the latest earlier instruction J of p
/// that touches overlapping SRAM (isa::sram_operands, sized by `dtype`) or DDR bytes with it,
/// one of them writing (a HOST touches everything), unless an earlier wait of q on p already
/// covers J; J pushes p2q. Tokens already on the instructions stay (none are expected). The
/// n-th wait of p2q meets exactly its own push (pushes go on strictly later p instructions, in
/// q's order), and every dependency points backwards, so the queues cannot deadlock. Cost:
/// O(operands x log ranges) per instruction (interval maps of the last reader and writer per
/// queue). Used by retoken() and by the depth-first stack emitter (add_hazard_tokens).
void derive_tokens(std::vector<isa::Instruction>& code, DType dtype, const TokenRules& rules);

/// Rewrites `program`'s tokens so that the program runs as its instruction list read in order
/// would, with as much overlap between the load, compute and store queues as its memory
/// accesses allow:
///  - every SYNC is removed and every wait/push cleared;
///  - derive_tokens() with the default rules (direct st2ld, DDR by rows).
/// The result passes isa::check_program, isa::check_dataflow and isa::check_sram_races whenever
/// the list read in order is correct.
void retoken(isa::Program& program);

}  // namespace npu::compiler
