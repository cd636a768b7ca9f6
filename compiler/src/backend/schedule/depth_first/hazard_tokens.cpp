// Dependency tokens of a depth-first stack: the emitter writes a stack as a straight-line list
// of instructions (program order is a valid sequential order) and derive_tokens (retoken.hpp)
// adds the cross-queue tokens that keep every conflicting pair in that order. Two rules differ
// from a whole program's: a LOAD that must follow a STORE (a skip tensor read back within the
// band) waits through a compute-queue SYNC (st2cp, then cp2ld), since st2ld stays reserved for
// the layer fences and cross-layer pipelining (pipeline.hpp), which pair their own st2ld pushes
// and waits by order across layers; and DDR bytes are compared by each DMA's whole span.
#include "backend/schedule/depth_first/stack_plan.hpp"
#include "npu/compiler/backend/schedule/retoken.hpp"

namespace npu::compiler::depth_first {

void add_hazard_tokens(std::vector<isa::Instruction>& code, DType dtype) {
  TokenRules rules;
  rules.store_to_load_via_sync = true;  // st2ld stays the fences' and pipelining's
  rules.ddr_by_span = true;
  derive_tokens(code, dtype, rules);
}

}  // namespace npu::compiler::depth_first
