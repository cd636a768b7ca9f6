#include <algorithm>
#include "npu/compiler/compiler.hpp"
#include "npu/compiler/pipeline.hpp"
#include "npu/compiler/sram_residency.hpp"

#include <chrono>
#include <set>
#include <cstdio>

#include "npu/compiler/int8_lowering.hpp"
#include "npu/compiler/pass_manager.hpp"

namespace npu::compiler {

CompileResult compile(const Graph& graph, const HwConfig& hw, const Strategy& strategy,
                      const CompileOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  if (hw.sram.capacity_bytes == 0)
    throw ConfigError(hw.source + ": error: sram.capacity is 0; the compiler needs the SRAM size to tile");
  CompileResult r;
  r.graph = graph;
  // int8 execution of a quantised model: fill the activation grids the model leaves implicit
  // (int8_lowering.hpp) before the passes, whose legality reads them.
  if (hw.mac_array.dtype == DType::Int8 && is_quantised(r.graph)) complete_quant(r.graph);
  const PassManager pm = PassManager::from_names(strategy.passes);
  r.decisions = pm.run(r.graph);
  r.lowered = lower(r.graph, hw);
  mark_depth_first_layers(r.graph, r.lowered);  // fuse-layers marks (depth_first.hpp)
  const std::string where = graph.source.empty() ? "model '" + graph.name + "'" : graph.source;
  // hoist-activation only prepares fuse-activation: hoisted activations with no fuse-activation
  // after it stay layers of their own (a pass order that does nothing, said rather than silent).
  const auto& ps = strategy.passes;
  const auto hoist = std::find(ps.begin(), ps.end(), "hoist-activation");
  if (hoist != ps.end() && std::find(hoist, ps.end(), "fuse-activation") == ps.end()) {
    int hoisted = 0;
    for (const Decision& d : r.decisions) hoisted += d.pass == "hoist-activation" && d.outcome == DecisionOutcome::Applied;
    if (hoisted > 0)
      r.warnings.push_back(where + ": warning: strategy '" + strategy.name + "': hoist-activation moved " +
                           std::to_string(hoisted) +
                           " activation(s) onto Conv/Gemm outputs, but no fuse-activation runs after it, so they "
                           "stay layers of their own; list fuse-activation after hoist-activation");
  }
  r.host_nodes = int(r.lowered.host_nodes.size());
  if (options.npu_only && r.host_nodes > 0) {
    std::string list;
    for (const auto& h : r.lowered.host_nodes) list += "\n  " + h.op_type + " '" + h.name + "': " + h.reason;
    throw ConfigError(where + ": error: --npu-only: " + std::to_string(r.host_nodes) +
                      " node(s) would run on the host:" + list +
                      "\n  drop --npu-only to simulate them on the host model, or change the model");
  }
  int unsized = 0;
  for (const auto& L : r.lowered.layers) {
    if (L.kind == LayerKind::Host) {
      r.host_macs += L.host_macs;
      unsized += L.host_unsized;
    } else {
      r.npu_macs += L.macs;
    }
  }
  const std::uint64_t all_macs = r.npu_macs + r.host_macs;
  if (all_macs > 0 && double(r.host_macs) > kHostMacWarnShare * double(all_macs)) {
    char pct[32];
    std::snprintf(pct, sizeof pct, "%.1f", 100.0 * double(r.host_macs) / double(all_macs));
    r.warnings.push_back(where + ": warning: " + pct + " % of the MACs (" + std::to_string(r.host_macs) + " of " +
                         std::to_string(all_macs) + ") run on the host (" + std::to_string(r.host_nodes) +
                         " host nodes; see the compile report's host rows)");
  }
  r.host_unsized = unsized;
  if (unsized > 0)
    r.warnings.push_back(where + ": warning: " + std::to_string(unsized) +
                         " host tensor(s) have a size known only at run time; their host time, MACs and DDR bytes are "
                         "not included (give --dynamic-size N to compile them for a worst case of N)");
  if (!graph.bounded_tensors.empty())
    r.warnings.push_back(where + ": warning: " + std::to_string(graph.bounded_tensors.size()) +
                         " tensor(s) have a size known only at run time, compiled for --dynamic-size " +
                         std::to_string(graph.dynamic_size) + ": their traffic and time are that worst case");
  bool any_npu = false;
  for (const auto& L : r.lowered.layers) any_npu = any_npu || L.kind != LayerKind::Host;
  if (!any_npu && r.lowered.host_nodes.empty()) {
    // Only views (Reshape, Flatten, Unsqueeze...): every output is the input's bytes, no
    // data moves, the program is empty and simulates to 0 cycles. Said, not hidden.
    r.warnings.push_back(where + ": warning: every node is a view of its input (" +
                         std::to_string(r.lowered.aliases.size()) +
                         " node(s)): no data moves, the program has no instructions and takes 0 cycles");
  } else if (!any_npu) {
    std::string first;
    if (!r.lowered.host_nodes.empty())
      first = " (first host node: '" + r.lowered.host_nodes[0].name + "': " + r.lowered.host_nodes[0].reason + ")";
    throw ConfigError(where + ": error: no layer runs on the NPU: " + std::to_string(r.lowered.host_nodes.size()) +
                      " node(s) on the host" + first +
                      "; the program would be empty. Give a model with at least one Conv, Gemm, pooling or "
                      "element-wise op the NPU lowers (docs/compiler.md, Lowering)");
  }
  TilingOptions tiling = options.tiling;
  tiling.act_bytes = r.lowered.act_bytes;
  tiling.overlap = strategy.overlap;
  tiling.traffic_weight = strategy.traffic_weight;
  if (hw.dma.burst_bytes > 0) tiling.burst_bytes = hw.dma.burst_bytes;
  // Bank-aware placement of each layer's buffers (sram_placement.hpp).
  if (tiling.sram_capacity_bytes == 0) tiling.sram_capacity_bytes = hw.sram.capacity_bytes;
  if (tiling.sram_banks == 0) tiling.sram_banks = hw.sram.banks;
  if (tiling.sram_interleave_bytes == 0) tiling.sram_interleave_bytes = hw.sram.bank_interleave_bytes;
  // Time-based tile choice: the array (dataflow decides which shapes fill it), the core
  // clock and the peak DDR bandwidth (docs/compiler.md "Tiling").
  if (tiling.array.rows == 0) tiling.array = hw.mac_array;
  if (tiling.core_period_ns == 0 && hw.npu.clock_mhz > 0) tiling.core_period_ns = hw.core_period_ns();
  if (tiling.ddr_bytes_per_ns == 0) tiling.ddr_bytes_per_ns = hw.ddr.peak_gbps();
  CodegenResult cg = generate(r.lowered, hw, tiling, graph.name, strategy.name);
  r.report = build_report(r.lowered, cg, hw, graph.name, strategy.name);
  for (auto& d : stack_decisions(cg.stacks)) r.decisions.push_back(std::move(d));
  for (auto& d : declined_stack_decisions(cg.declined_stacks)) r.decisions.push_back(std::move(d));
  r.stacks = cg.stacks;
  if (options.pipeline) {
    std::vector<Decision> d = pipeline_layers(cg.program, hw);
    r.decisions.insert(r.decisions.end(), d.begin(), d.end());
    // Depth-first: what the stacks still write to DDR and read back stays in SRAM where a
    // range is free for its lifetime (sram_residency.hpp). Needs the data tokens that
    // replace the fences, so not with --no-pipeline.
    if (strategy.uses("fuse-layers")) {
      std::map<std::string, double> times;
      for (const LayerReport& l : r.report.layers)
        if (l.placement == "npu") times[l.layer] = l.compute_ns;
      double saved_by_stacks = 0;
      for (const StackSummary& st : cg.stacks) saved_by_stacks += std::max(0.0, st.layer_by_layer_ns - st.estimated_ns);
      // Residency may spend up to traffic_weight x the time the stacks saved (0: never slower by
      // the estimates; the default 1: no slower than the layers one by one).
      std::vector<Decision> k = keep_resident(cg.program, hw, &times, strategy.traffic_weight,
                                              std::max(strategy.traffic_weight, 0.0) * saved_by_stacks);
      r.decisions.insert(r.decisions.end(), k.begin(), k.end());
    }
  } else if (strategy.uses("fuse-layers")) {
    Decision d;  // said, not silent: the stacks' DDR tensors stay in DDR
    d.pass = "keep-resident";
    d.label = graph.name;
    d.reason = "--no-pipeline keeps every layer's fence, and SRAM residency needs the data tokens that replace "
               "them: every intermediate the stacks write stays in DDR";
    r.decisions.push_back(std::move(d));
  }
  // The program declares the DDR tensors it moves: an intermediate that no LOAD or STORE names
  // (a depth-first stack keeps it on chip) has no DDR region.
  {
    std::set<std::string> moved;
    for (const auto& in : cg.program.instructions)
      if (in.op == isa::Opcode::Load || in.op == isa::Opcode::Store) moved.insert(in.tensor);
    auto& ts = cg.program.tensors;
    ts.erase(std::remove_if(ts.begin(), ts.end(),
                            [&](const isa::TensorDecl& t) {
                              return t.kind == isa::TensorKind::Intermediate && !moved.count(t.name);
                            }),
             ts.end());
  }
  // Planned bytes come from the program's LOADs and STOREs: after every rewrite of them.
  set_planned_bytes(r.report, cg.program, hw);
  r.program = std::move(cg.program);
  r.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace npu::compiler
