// Moving an instruction's SRAM operands: used by the compiler to place a layer's buffers at
// another SRAM offset (cross-layer pipelining, compiler/pipeline.hpp) after generating it.
#pragma once

#include <cstdint>

#include "npu/isa/instruction.hpp"

namespace npu::isa {

/// Adds `delta` bytes to every SRAM address of `inst` that sram_operands() lists (LOAD/STORE
/// sram; CONV/GEMM inputs, weights, output and epilogue bias/scale_shift/residual/in_scale;
/// ACT in/res/out/param; ELTWISE a/b/out; POOL in/out; MOVE in/out); operands absent from sram_operands
/// (e.g. an epilogue without a bias) keep their value. Throws std::out_of_range when an
/// address would leave [0, 2^32).
void relocate_sram(Instruction& inst, std::int64_t delta);

}  // namespace npu::isa
