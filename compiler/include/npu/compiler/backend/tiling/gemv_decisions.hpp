// `npu compile --explain` lines for decode's GEMMs: which mapping each GEMM with
// M <= mac_array.gemv_max_m took and the estimated cycles of every candidate
// (isa/cost/gemv_mapping.hpp, docs/config.md "mac_array").
#pragma once

#include <map>
#include <string>
#include <vector>

#include "npu/compiler/backend/lowering/lowering.hpp"
#include "npu/compiler/ir/decision.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace npu::compiler {

/// One "gemv-mapping" decision per Gemm layer of `lowered` with M <= hw.mac_array.gemv_max_m:
/// Applied with the mapping taken and the candidates' cycles (each for the layer as one
/// M x K by K x N GEMM, output tiles as wide as the array), or Declined when gemv_mapping is
/// `dataflow` (the array's own dataflow runs it, with the cycles the other mappings would
/// take). `tile_notes` (layer name -> text, may be null) is appended to a layer's reason: the
/// caller's note where the layer's real tiles are narrower than those cycles assume.
std::vector<Decision> gemv_decisions(const LoweredGraph& lowered, const HwConfig& hw,
                                     const std::map<std::string, std::string>* tile_notes = nullptr);

}  // namespace npu::compiler
