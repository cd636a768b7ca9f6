// fuse-swiglu's dual GEMM at lowering (swiglu_lowering.hpp).
#include "backend/lowering/swiglu_lowering.hpp"

#include <algorithm>

#include "npu/compiler/backend/tiling/tiling.hpp"
#include "npu/compiler/ir/fused_attr.hpp"

namespace npu::compiler::lowering {

std::uint64_t dual_gemm_min_sram_bytes(const LayerSpec& L, int elem_bytes) {
  TilingOptions o;  // as codegen's conv_layer_options for this layer (conv.cpp)
  o.act_bytes = elem_bytes;
  o.residual = true;  // the gate buffer, shaped like the output tile
  o.dual_gemm = true;
  if (!L.prologue_params.empty())
    o.prologue_param_bytes = isa::act_param_elems(L.prologue, 1, std::uint64_t(L.geom.c_in)) * isa::kParamElemBytes;
  o.batch = std::max(L.batch, 1);
  return conv_min_sram_bytes(L.geom, o);
}

void set_swiglu(LowerCtx& ctx, const Node& n, LayerSpec& L) {
  if (n.attr_int(fused_attr::kSwiglu, 0) == 0 || n.inputs.size() <= fused_attr::kSwigluGateInput) return;
  const std::string& gate_w = n.inputs[fused_attr::kSwigluGateInput];
  const std::uint64_t need = dual_gemm_min_sram_bytes(L, ctx.elem_bytes());
  if (need <= ctx.sram_capacity()) {
    L.glu_gate = gate_w;
    return;
  }
  // Fallback: the gate GEMM (SiLU epilogue) writes its product to DDR; L multiplies by it.
  const ConvGeom& g = L.geom;
  LayerSpec G = L;
  G.name = L.name + ".gate";
  G.covers = {n.name};
  G.weight = gate_w;
  G.bias.clear();
  G.residual.clear();
  G.residual_mul = false;
  G.act = isa::ActOp::Silu;
  G.output = ctx.temp_tensor(L.name + ".gate_silu",
                             std::uint64_t(g.h_out) * std::uint64_t(g.c_out) * std::uint64_t(ctx.elem_bytes()));
  G.macs = g.macs();
  const std::string gate_out = G.output, gate_name = G.name;
  ctx.finish(G);  // (moves G into the lowered graph)
  L.residual = gate_out;
  L.residual_mul = true;
  L.glu_fallback = "no dual tile fits the SRAM (its smallest, one row x one N tile of A, both weight tiles, the gate "
                   "buffer and the output, needs " + std::to_string(need) + " B; sram.capacity_bytes is " +
                   std::to_string(ctx.sram_capacity()) + "): falls back to the single-GEMM epilogue (" + gate_name +
                   " writes silu(gate) to DDR, " + L.name + " multiplies by it)";
}

std::vector<Decision> swiglu_fallback_decisions(const LoweredGraph& lowered) {
  std::vector<Decision> out;
  for (const LayerSpec& L : lowered.layers) {
    if (L.glu_fallback.empty()) continue;
    Decision d;
    d.pass = "fuse-swiglu";
    d.label = "silu(" + L.name + ".gate) * " + L.name + " (dual-GEMM tile)";
    d.outcome = DecisionOutcome::Declined;
    d.reason = L.glu_fallback;
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace npu::compiler::lowering
