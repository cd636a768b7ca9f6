// Lower bounds on a plan's figures while it is generated (plan_bound.hpp).
#include "npu/compiler/backend/tiling/plan_bound.hpp"

#include <algorithm>

#include "npu/isa/check/dataflow_check.hpp"
#include "npu/isa/cost/dma_time.hpp"

namespace npu::compiler {

PlanFiguresBound::PlanFiguresBound(std::uint64_t sram_bytes, const LoweredGraph& lowered, const HwConfig& hw)
    : lowered_(lowered), ddr_capacity_(hw.ddr.capacity_bytes()), dma_(isa::dma_stream_model(hw)) {
  f_.sram_bytes = sram_bytes;
  // The same burst and core period as plan_figures() and build_report().
  burst_ = std::uint64_t(std::max(1, hw.ddr.burst_bytes()));
  core_ns_ = hw.npu.clock_mhz > 0 ? hw.core_period_ns() : 1.0;
}

const PlanFigures& PlanFiguresBound::update(std::size_t last_layer, const CodegenResult& so_far) {
  // codegen::fit_ddr() moves the DDR tensors only when they overflow the DDR as placed.
  const std::uint64_t cap = ddr_capacity_;
  std::uint64_t end = 0;
  for (const auto& t : so_far.program.tensors) end = std::max(end, t.ddr_addr + t.bytes);
  if (cap != 0 && end > cap) valid_ = false;
  const auto& ins = so_far.program.instructions;
  for (; instructions_seen_ < ins.size(); ++instructions_seen_) {
    const isa::Instruction& in = ins[instructions_seen_];
    if (in.op != isa::Opcode::Load && in.op != isa::Opcode::Store) continue;
    const std::uint64_t n = isa::ddr_burst_bytes(std::get<isa::DmaDesc>(in.params), burst_);
    layer_ns_[in.layer] += isa::dma_descriptor_ns(dma_, n);
    f_.ddr_bytes += n;
  }
  const std::size_t done = std::min({last_layer + 1, so_far.layers.size(), lowered_.layers.size()});
  for (; layers_done_ < done; ++layers_done_) {
    const LayerSpec& L = lowered_.layers[layers_done_];
    const LayerCodegenInfo& info = so_far.layers[layers_done_];
    if (L.kind == LayerKind::Host || info.stack >= 0) continue;  // not in plan_figures()' layer sum
    const bool array = L.kind == LayerKind::Conv || L.kind == LayerKind::Gemm || L.kind == LayerKind::Attention;
    const double c = array ? double(info.array_cycles) * core_ns_ : 0.0;
    const auto b = layer_ns_.find(L.name);
    const double m = b != layer_ns_.end() ? b->second : 0.0;
    f_.estimated_ns += layer_estimate_ns(c, m, info.steps);
  }
  return f_;
}

bool improves_on_every_completion(const PlanFigures& candidate, const PlanFigures& bound) {
  const double t = bound.estimated_ns;
  if (candidate.ddr_bytes <= bound.ddr_bytes && candidate.estimated_ns < t * (1.0 - kPlanTimeTie)) return true;
  return candidate.ddr_bytes < bound.ddr_bytes && candidate.estimated_ns <= t * (1.0 + kPlanTimeTie);
}

}  // namespace npu::compiler
