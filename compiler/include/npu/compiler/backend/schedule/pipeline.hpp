// Cross-layer pipelining: codegen separates consecutive layers by a fence (a SYNC on the
// compute and on the store queue that the next layer's first LOAD waits for), so the next
// layer's weights and first input tile load only after every instruction of this layer has
// finished. pipeline_layers() replaces a fence by the dependencies that are real:
//  - SRAM: the next layer X is moved to the other end of the SRAM (its buffers relocated by
//    a whole number of banks), disjoint from the layer P before it, when both fit; X's first
//    LOAD then waits only for the last STORE of the latest earlier layer whose SRAM range
//    overlaps X's (that store finishing means that layer's computes and stores are done);
//  - DDR: each LOAD of X that reads stored data (an intermediate or output tensor) waits for
//    the last STORE, in store-queue order, that wrote any of the bytes it reads.
// Waits use the st2ld token: the chosen STOREs push it, the LOADs wait for it, in the same
// order, so the k-th wait matches the k-th push. X's weights, and input tiles whose rows P
// stored early, load while P still computes and stores. docs/compiler.md, "Cross-layer
// pipelining".
#pragma once

#include <vector>

#include "npu/compiler/transforms/pass.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "npu/isa/instruction.hpp"

namespace npu::compiler {

/// Rewrites the fences of `program` (as codegen emits them) where the two layers' SRAM
/// ranges fit side by side in hw.sram.capacity_bytes; returns one Decision per fence (pass
/// "pipeline-layers": applied "pipelined", or declined with the reason: SRAM too small for
/// both, a HOST layer on either side, or a fence of another form). The result passes
/// isa::check_program and isa::check_dataflow whenever the input did (tests).
std::vector<Decision> pipeline_layers(isa::Program& program, const HwConfig& hw);

}  // namespace npu::compiler
