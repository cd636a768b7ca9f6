// Lower bounds on a smaller-SRAM plan's figures from the part of its program generated so far
// (issue 29 item 4: a compile that does not pay for every SRAM size). The SRAM-plan ladder
// (sram_plans.hpp) keeps a plan for the configured SRAM S only where the estimates rank it
// better than the plans for S/2, S/4, ...; the small sizes' programs are the most expensive
// to generate (ResNet-50 at 64 KiB: 73,641 instructions against 3,685 at 1 MiB) and are
// almost never kept. Once the partial figures of such a size already rank it below the S/2
// plan, whatever the rest of its program adds, the ladder stops generating it: the choice is
// the same as with every size compiled to the end (compiler.cpp, fast ladder). Reference:
// docs/compiler.md "SRAM placement" (program-level plans), docs/performance.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "npu/compiler/backend/codegen/codegen.hpp"
#include "npu/compiler/backend/lowering/lowering.hpp"
#include "npu/compiler/backend/tiling/sram_plans.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace npu::compiler {

/// Running lower bounds on plan_figures() of a program being generated for `sram_bytes`.
/// Valid only for a program that no later pass shortens: no depth-first stacks and no SRAM
/// residency (strategies without fuse-layers), and pipeline-layers, which only rewrites
/// tokens and fences. Why each figure is a lower bound:
/// - ddr_bytes: the burst-rounded bytes (isa::ddr_burst_bytes) of the LOADs and STOREs emitted
///   so far, a prefix of the final program's sum. Only while the DDR tensors fit the DDR as
///   placed (codegen fit_ddr() would move them, and with them the burst rounding): else valid()
///   turns false for good.
/// - estimated_ns: plan_figures() adds, per NPU layer outside a stack in lowered order,
///   max(C, M) + (C + M) / steps (C compute ns, M the DMA ns of the LOADs/STOREs named after
///   it). Here, per finished layer in the same order: the same term with M summed over the
///   instructions so far (a prefix, added in the same order, so <= the final M) and C as the
///   report computes it for CONV/GEMM/attention (array_cycles x core period) and 0 for vector
///   layers. The term is non-decreasing in C and M and the sum runs over a prefix of the same
///   non-negative terms in the same order, so with IEEE rounding it is <= the final figure.
/// Costs O(instructions + layers) over a whole generation.
class PlanFiguresBound {
 public:
  /// `hw`: the config the size is generated for (read here only: nothing of it is kept);
  /// `lowered` must outlive the bound.
  PlanFiguresBound(std::uint64_t sram_bytes, const LoweredGraph& lowered, const HwConfig& hw);

  /// Takes in what was generated since the last call (`so_far` as generate()'s LayerHook
  /// sees it, `last_layer` the last lowered layer done) and returns the bound.
  const PlanFigures& update(std::size_t last_layer, const CodegenResult& so_far);

  const PlanFigures& figures() const { return f_; }
  /// False once the DDR tensors overflow the DDR as placed (the bound no longer holds).
  bool valid() const { return valid_; }
  /// Lowered layers generated so far.
  std::size_t layers_done() const { return layers_done_; }

 private:
  const LoweredGraph& lowered_;
  std::uint64_t ddr_capacity_ = 0;  // hw.ddr.capacity_bytes(): what fit_ddr() checks
  isa::DmaStreamModel dma_;
  std::uint64_t burst_ = 1;
  double core_ns_ = 1.0;
  PlanFigures f_;
  std::map<std::string, double> layer_ns_;  // DMA ns so far per layer name
  std::size_t instructions_seen_ = 0;
  std::size_t layers_done_ = 0;
  bool valid_ = true;
};

/// True when `candidate` improves_on() every plan whose figures are at least `bound`'s (DDR
/// bytes and estimated time, each >= the bound's): it moves no more bytes than the bound and
/// is faster beyond the tie, or moves fewer bytes and is at most tied. improves_on() then
/// holds for the real plan: a faster candidate needs bytes <= kept + an allowance >= 0, a tied
/// one fewer bytes (the proof in docs/compiler.md, "The fast ladder").
bool improves_on_every_completion(const PlanFigures& candidate, const PlanFigures& bound);

}  // namespace npu::compiler
