// SRAM residency of DDR intermediates: a tensor written to DDR by one layer (or stack) and
// read back by later ones stays in an SRAM range that nothing else uses between its first
// STORE and its last LOAD; its STOREs and LOADs become MOVEs into and out of that range, so
// it never crosses the DDR bus. The depth-first strategy's last step (fuse-layers): what a
// stack cannot keep on chip because the next stack, or a layer outside any stack, reads it.
// docs/compiler.md, "SRAM residency".
#pragma once

#include <limits>
#include <map>
#include <string>
#include <vector>

#include "npu/compiler/transforms/pass.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "npu/isa/instruction.hpp"

namespace npu::compiler {

/// Keeps intermediate DDR tensors of `program` in SRAM where a range is free for their whole
/// lifetime, and re-derives the program's tokens (retoken.hpp).
///
/// Candidates: tensors of kind `intermediate` whose first access is a STORE, every access with
/// elements of the program's dtype. Largest DDR traffic first (the bytes of all their LOADs and
/// STOREs), each gets the smallest free range (64-byte aligned, within hw.sram.capacity_bytes)
/// that no instruction from its first STORE to its last LOAD touches and no tensor kept earlier
/// holds at the same time (best fit). The range mirrors the tensor's DDR layout: DDR byte
/// `ddr_addr + k` lives at SRAM `range + k`, so a STORE [e0, e1, e2] with DDR strides (s0, s1)
/// becomes a MOVE from its packed SRAM tile to range + (ddr - base) with out strides
/// (1, s0/e, s1/e) elements, and a LOAD the MOVE the other way. A kept tensor's DDR declaration
/// is removed (nothing reads or writes it). Read in order, the program computes the same
/// values; retoken() then orders every conflicting pair, so the queues may run it in any
/// order its data allows.
///
/// Cost rule (with `compute_ns`): a tensor is kept only if, over the layers W that have an
/// instruction between its first STORE and its last LOAD (they overlap: the tokens order only
/// conflicting accesses),
///   max(sum_W C + move, sum_W M - saved) - max(sum_W C, sum_W M)
///     <= traffic_weight x saved,
/// where C is a layer's estimated compute time (the compile report's compute_ns, plus the MOVEs
/// of tensors kept before), M the DDR time of its LOADs and STOREs as the DRAM moves them (each
/// DMA row's bytes rounded out to whole ddr.burst_bytes() bursts, each LOAD or STORE timed by
/// isa::dma_descriptor_ns, the achievable stream rate with its first-burst latency: a strided
/// read of 2 bytes every 85 costs a burst each), `move` the cycles of the tensor's new MOVEs on
/// the vector unit (ceil(elems / act_unit.lanes) + the identity latency each, docs/timing.md)
/// and `saved` the DDR time of the LOADs and STOREs they replace: the roofline estimate of the
/// time those layers take, plus, weighted, the time the traffic keeps the DDR busy -- the
/// depth-first planner's objective (docs/depth_first.md). A MOVE runs on the compute queue, so
/// where the layers are compute-bound it costs time, and where the vector unit moves no more
/// bytes per ns than the DDR bus (the mobile preset) more than the traffic it saves. Without
/// `compute_ns`, every tensor that fits is kept. And the estimated time the kept tensors add
/// (net, in the order they are kept) stays within `time_budget_ns`: the compiler gives
/// traffic_weight x the time its depth-first stacks are estimated to save against their layers
/// one by one, so that at the default weight 1 residency never spends more than the stacks won
/// (depth-first no slower than `residual`'s layer-by-layer program, by the estimates), and at
/// weight 0 nothing that costs time.
///
/// Returns one Decision per candidate (pass "keep-resident": applied "kept in SRAM" with the
/// range, the layers it spans and the DDR bytes saved; declined with the SRAM it would need),
/// or one declined Decision for the whole program when it has a HOST instruction (the host
/// reads and writes DDR tensors the program does not name). Deterministic. With
/// `added_ns`, sets it to the net estimated time (ns) the kept tensors add, the sum of their
/// costed deltas (0 without `compute_ns`).
std::vector<Decision> keep_resident(isa::Program& program, const HwConfig& hw,
                                    const std::map<std::string, double>* compute_ns = nullptr,
                                    double traffic_weight = 1.0,
                                    double time_budget_ns = std::numeric_limits<double>::infinity(),
                                    double* added_ns = nullptr);

}  // namespace npu::compiler
