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
/// Cost: a LOAD whose byte hull [ddr_addr, ddr_addr + span) is already written costs one
/// look-up, whatever its row count; otherwise O(rows x log(written ranges)). Memory: the
/// written ranges only (rows are visited, never stored), so a multi-GB program with tens of
/// millions of rows (llama-2-7b decode) is checked in well under a second.
std::vector<CheckIssue> check_dataflow(const Program& program);

/// Calls f(begin, end) for each DDR byte range [begin, end) a LOAD/STORE descriptor touches,
/// exactly the ranges ddr_rows() returns, in the same order, without storing them: a run of
/// rows at stride extent[0] x elem_bytes (contiguous) is one range found in O(1), so a
/// contiguous descriptor costs O(extent[2]) whatever extent[1] is. Addresses wrap modulo 2^64
/// as ddr_rows()'s do.
template <class F>
void for_each_ddr_row(const DmaDesc& d, F&& f) {
  if (d.extent[0] == 0 || d.extent[1] == 0 || d.extent[2] == 0 || d.elem_bytes <= 0) return;
  const std::uint64_t row = std::uint64_t(d.extent[0]) * std::uint64_t(d.elem_bytes);
  const bool contiguous = d.ddr_stride_bytes[0] == row;  // rows j of one k follow each other
  const std::uint64_t per_k = contiguous ? 1 : d.extent[1];
  const std::uint64_t len = contiguous ? row * std::uint64_t(d.extent[1]) : row;
  bool open = false;
  std::uint64_t lo = 0, hi = 0;
  for (std::uint64_t k = 0; k < d.extent[2]; ++k)
    for (std::uint64_t j = 0; j < per_k; ++j) {
      const std::uint64_t b = d.ddr_addr + k * d.ddr_stride_bytes[1] + j * d.ddr_stride_bytes[0];
      if (open && hi == b) {
        hi = b + len;
        continue;
      }
      if (open) f(lo, hi);
      open = true;
      lo = b;
      hi = b + len;
    }
  if (open) f(lo, hi);
}

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
