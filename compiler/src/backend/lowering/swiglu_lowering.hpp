// fuse-swiglu's dual GEMM at lowering (fused_attr::kSwiglu): one layer whose tiles compute the
// gate into SRAM (LayerSpec::glu_gate) when its minimal dual tile fits the SRAM, else the
// single-GEMM epilogue form (the gate GEMM writes silu(A W_gate) to DDR and the up GEMM's
// epilogue multiplies by it), reported as a fuse-swiglu decline. Internal to the compiler.
#pragma once

#include <vector>

#include "backend/lowering/lowering_table.hpp"
#include "npu/compiler/ir/decision.hpp"

namespace npu::compiler::lowering {

/// For a kSwiglu node `n` lowered as the GEMM L (geometry, input, prologue set; before
/// finish_mac): sets L.glu_gate when the dual tile fits ctx.sram_capacity(); otherwise lowers
/// the gate GEMM as a layer of its own (named L.name + ".gate", output a DDR intermediate
/// L.name + ".gate_silu" of M x N elements) and makes L read it as its mul= operand, with
/// L.glu_fallback saying why. No-op for other nodes.
void set_swiglu(LowerCtx& ctx, const Node& n, LayerSpec& L);

/// SRAM bytes of the smallest dual-GEMM tile of L (one row x the narrowest N tile: A row, both
/// weight tiles, gate buffer, output; tiling.hpp conv_min_sram_bytes with dual_gemm).
std::uint64_t dual_gemm_min_sram_bytes(const LayerSpec& L, int elem_bytes);

/// One declined fuse-swiglu decision per layer that fell back (LayerSpec::glu_fallback).
std::vector<Decision> swiglu_fallback_decisions(const LoweredGraph& lowered);

}  // namespace npu::compiler::lowering
