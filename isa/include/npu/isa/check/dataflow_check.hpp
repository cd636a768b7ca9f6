// DDR data-flow check of a program: what fusion legality means at the DDR level. A fused
// program may drop an intermediate from DDR only if nothing reads it there; a LOAD of an
// intermediate must come after the STOREs that wrote it; every graph output must be written.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "npu/isa/check/program_check.hpp"
#include "npu/isa/instruction.hpp"

namespace npu::isa {

/// Checks the program's DDR data flow (issues of kind CheckKind::Dataflow):
///  - every byte a LOAD reads from a tensor of kind `intermediate` or `output` was written
///    by a STORE that happens before the LOAD. Happens-before is the hardware's: program
///    order inside each queue (load, compute, store), and the k-th wait on a token comes
///    after the k-th push of that token (counting semaphores, docs/isa.md "Tokens"); a
///    program without any token runs in strict program order. Tensors of kind `input` and
///    `weight` hold their data before the program starts.
///  - every byte of every tensor of kind `output` is written by some STORE.
/// Byte ranges come from the DMA descriptors (extent[0] x elem contiguous bytes per row,
/// rows at ddr_stride_bytes). A program whose tokens are unbalanced or that deadlocks
/// (check_program reports those) is checked for outputs only. One issue per offending
/// LOAD or tensor, naming the tensor, the byte range and the first unwritten offset.
/// Cost: O(LOADs x STOREs of the same tensor x rows) in the worst case; used by the tests
/// and `npu asm check`, not on every compile.
std::vector<CheckIssue> check_dataflow(const Program& program);

/// The DDR byte ranges [begin, end) a LOAD/STORE descriptor touches: extent[0] x elem_bytes
/// contiguous bytes per row, rows at ddr_stride_bytes, in descriptor order, rows that follow
/// each other in DDR merged. Empty when an extent is 0. Used by the data-flow check and by
/// cross-layer pipelining (compiler/pipeline.hpp).
std::vector<std::pair<std::uint64_t, std::uint64_t>> ddr_rows(const DmaDesc& d);

/// Bytes the DRAM moves for a LOAD/STORE descriptor: each of its ddr_rows() rounded out to
/// whole `burst_bytes` bursts (a partial burst costs a whole one). Used by the compiler's
/// estimates (SRAM residency, program-level SRAM plans). 0 when burst_bytes is 0.
std::uint64_t ddr_burst_bytes(const DmaDesc& d, std::uint64_t burst_bytes);

}  // namespace npu::isa
