// SRAM race check of a program: two instructions on different queues that touch the same
// SRAM bytes, at least one of them writing, must be ordered by tokens. Otherwise the result
// depends on which finishes first: the functional data path (docs/functional.md) and the
// hardware compute whatever the timing happens to give.
#pragma once

#include <vector>

#include "npu/isa/check/program_check.hpp"
#include "npu/isa/instruction.hpp"

namespace npu::isa {

/// Checks every pair of SRAM accesses (isa::sram_operands: the ranges each instruction reads
/// and writes, sized by the program's dtype) for happens-before (happens_before.hpp: queue
/// order and tokens). Two instructions race when they touch the same bytes, at least one
/// writes, and neither happens before the other. Each race is one issue of kind
/// CheckKind::SramRace at the later of the two in program text (where a wait would go to run
/// them in program order), naming both instructions, the shared SRAM bytes, both operands
/// and the token FROM2TO that would order them; one issue per later instruction; at most 20
/// issues, then one issue counting the rest. A program whose queues cannot complete
/// (check_program's token/deadlock issues) is not checked. Bytes read before any write are
/// not reported (SRAM holds whatever it held). Method: one pass in a happens-before
/// consistent order keeping, per SRAM byte range, the last writer and the last reader of each
/// queue (the FastTrack race detector's method, Flanagan and Freund, PLDI 2009):
/// O(operands x log ranges).
std::vector<CheckIssue> check_sram_races(const Program& program);

}  // namespace npu::isa
