#include <algorithm>
#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/ir/graph_stats.hpp"
#include "npu/compiler/backend/tiling/gemv_decisions.hpp"
#include "backend/lowering/swiglu_lowering.hpp"
#include "backend/lowering/view_decisions.hpp"
#include "driver/plan_ladder.hpp"
#include "driver/params_region_warning.hpp"
#include "driver/precision_warnings.hpp"
#include "npu/compiler/backend/tiling/conv_plan_cache.hpp"
#include "npu/compiler/backend/schedule/pipeline.hpp"
#include "npu/compiler/backend/tiling/sram_plans.hpp"
#include "npu/compiler/backend/tiling/sram_residency.hpp"

#include <fmt/format.h>
#include <optional>

#include <atomic>
#include <chrono>
#include <exception>
#include <set>
#include <thread>
#include <cstdio>

#include "npu/compiler/backend/lowering/int8/int8_lowering.hpp"
#include "npu/compiler/transforms/pass_manager.hpp"
#include "npu/isa/assembly.hpp"
#include "npu/isa/cost/ddr_stream.hpp"
#include "npu/isa/cost/dma_time.hpp"
#include "npu/base/user_text.hpp"

namespace npu::compiler {

namespace {

/// hoist-activation only prepares fuse-activation: hoisted activations with no fuse-activation
/// after it stay layers of their own (a pass order that does nothing, said rather than silent).
void warn_hoist_without_fusion(CompileResult& r, const Strategy& strategy, const std::string& where) {
  const auto& ps = strategy.passes;
  const auto hoist = std::find(ps.begin(), ps.end(), "hoist-activation");
  if (hoist == ps.end() || std::find(hoist, ps.end(), "fuse-activation") != ps.end()) return;
  int hoisted = 0;
  for (const Decision& d : r.decisions) hoisted += d.pass == "hoist-activation" && d.outcome == DecisionOutcome::Applied;
  if (hoisted > 0)
    r.warnings.push_back(where + ": warning: strategy '" + strategy.name + "': hoist-activation moved " +
                         std::to_string(hoisted) +
                         " activation(s) onto Conv/Gemm outputs, but no fuse-activation runs after it, so they "
                         "stay layers of their own; list fuse-activation after hoist-activation");
}

/// Counts the host nodes and the MACs on the NPU and on the host, and warns of a large host
/// share and of sizes known only at run time. Throws ConfigError under --npu-only when a node
/// would run on the host.
void account_host_work(CompileResult& r, const Graph& graph, const CompileOptions& options, const std::string& where) {
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
  for (const std::string& w : graph.import_warnings) r.warnings.push_back(where + ": warning: " + w);
  if (!graph.bounded_tensors.empty())
    r.warnings.push_back(where + ": warning: " + std::to_string(graph.bounded_tensors.size()) +
                         " tensor(s) have a size known only at run time, compiled for --dynamic-size " +
                         std::to_string(graph.dynamic_size) + ": their traffic and time are that worst case");
  else if (graph.dynamic_size > 0)  // a flag that does nothing is said, not silently accepted
    r.warnings.push_back(where + ": note: --dynamic-size " + std::to_string(graph.dynamic_size) +
                         " does nothing: every size in the model is known before the run");
}

/// A graph with no NPU layer: a warning when it is only views (an empty program, 0 cycles),
/// a ConfigError when host nodes would make all of it, or when every graph output is a
/// constant (folded at import: the program would compute nothing and write no output).
void check_npu_work(CompileResult& r, const std::string& where) {
  bool any_npu = false;
  for (const auto& L : r.lowered.layers) any_npu = any_npu || L.kind != LayerKind::Host;
  if (any_npu) return;
  const auto& outs = r.graph.outputs;
  const bool all_const = !outs.empty() && std::all_of(outs.begin(), outs.end(), [&](const std::string& o) {
    return r.graph.tensors.count(o) && r.graph.tensor(o).is_constant;
  });
  if (all_const)
    throw ConfigError(where + ": error: every graph output is a constant (" + std::to_string(outs.size()) +
                      " output(s), first '" + echo(outs[0]) +
                      "'): its value does not depend on the inputs, so the program would compute nothing and a "
                      "run would produce no output\n  fix: give a model whose outputs are computed from its "
                      "inputs (the constants are in the model file already: read them there)");
  if (r.lowered.host_nodes.empty()) {
    // Only views (Reshape, Flatten, Unsqueeze...): every output is the input's bytes, no
    // data moves, the program is empty and simulates to 0 cycles. Said, not hidden.
    r.warnings.push_back(where + ": warning: every node is a view of its input (" +
                         std::to_string(r.lowered.aliases.size()) +
                         " node(s)): no data moves, the program has no instructions and takes 0 cycles");
    return;
  }
  const std::string first =
      " (first host node: '" + r.lowered.host_nodes[0].name + "': " + r.lowered.host_nodes[0].reason + ")";
  throw ConfigError(where + ": error: no layer runs on the NPU: " + std::to_string(r.lowered.host_nodes.size()) +
                    " node(s) on the host" + first +
                    "; the program would be empty. Give a model with at least one Conv, Gemm, pooling or "
                    "element-wise op the NPU lowers (docs/compiler.md, Lowering)");
}

/// The tiling options: the user's, with what they leave unset (0) taken from the lowered graph,
/// the strategy and the hardware.
TilingOptions tiling_for(const CompileResult& r, const HwConfig& hw, const Strategy& strategy,
                         const CompileOptions& options) {
  TilingOptions tiling = hardware_tiling_options(hw, options.tiling);
  tiling.act_bytes = r.lowered.act_bytes;
  tiling.overlap = strategy.overlap;
  tiling.traffic_weight = strategy.traffic_weight;
  return tiling;
}


}  // namespace

std::vector<std::string> program_passes(const Strategy& strategy, const CompileOptions& options) {
  if (!options.pipeline) return {};
  if (strategy.uses("fuse-layers")) return {"pipeline-layers", "keep-resident"};
  return {"pipeline-layers"};
}

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
  // Every pass that ran, in order: the import passes (recorded on the graph by the front end),
  // the strategy's graph passes here, then the program passes and the planners' decisions.
  r.decisions = graph.import_decisions;
  PassContext ctx;
  ctx.model = graph.name.empty() ? "graph" : graph.name;
  ctx.source = graph.source;
  ctx.hw = &hw;
  const std::vector<Decision> graph_decisions = PassManager::from_names(strategy.passes).run(r.graph, ctx);
  r.decisions.insert(r.decisions.end(), graph_decisions.begin(), graph_decisions.end());
  r.lowered = lower(r.graph, hw);
  // fuse-swiglu's dual GEMMs that fell back for want of SRAM (swiglu_lowering.hpp).
  for (auto& d : lowering::swiglu_fallback_decisions(r.lowered)) r.decisions.push_back(std::move(d));
  for (auto& d : lowering::view_decisions(r.lowered)) r.decisions.push_back(std::move(d));  // composed layout nodes
  mark_depth_first_layers(r.graph, r.lowered);  // fuse-layers marks (depth_first.hpp)
  const std::string where = graph.source.empty() ? "model '" + graph.name + "'" : graph.source;
  warn_hoist_without_fusion(r, strategy, where);
  account_host_work(r, graph, options, where);
  check_npu_work(r, where);
  TilingOptions tiling = tiling_for(r, hw, strategy, options);
  // Every SRAM size below tiles the same layers: plan_conv's choices are shared among them, and
  // between program_size_bound and code generation (conv_plan_cache.hpp; freed on return).
  ConvPlanCache conv_plans(hw.sram.capacity_bytes);
  tiling.conv_plans = &conv_plans;
  // Smaller-SRAM plans stay candidates (sram_plans.hpp): the program for the configured SRAM
  // is kept only where the estimates rank it better than the one for half of it, and so on
  // down; a capacity fixed in the tiling options (tests) or --no-smaller-sram-plans compiles
  // for the configured SRAM alone.
  bool ladder = options.smaller_sram_plans && options.tiling.sram_capacity_bytes == 0;
  // The model's parameters as imported, before the strategy's passes: fusions such as
  // fuse-swiglu (gate and up as one weight) must not change which models take the ladder.
  const std::int64_t params = ladder ? graph_stats(graph).params : 0;
  if (params > kSramLadderMaxParams) {
    ladder = false;
    r.ladder_skipped_params = params;
    r.warnings.push_back(where + ": warning: compiled for the configured SRAM only, not its smaller-SRAM plans: " +
                         std::to_string(params) +
                         " parameters are more than the plan ladder's limit of 1e9 (one program per SRAM size "
                         "would be held in memory; sram_plans.hpp kSramLadderMaxParams)");
  }
  const std::vector<std::uint64_t> capacities =
      ladder ? sram_plan_capacities(hw) : std::vector<std::uint64_t>{hw.sram.capacity_bytes};
  // The program and its report carry the graph's name as one .npuasm word (said when it differs).
  const std::string name = isa::asm_word(graph.name, "model");
  if (name != graph.name)
    r.warnings.push_back(where + ": warning: graph name '" + echo(graph.name) +
                         "' has characters a .npuasm name cannot hold (whitespace, control characters, '#'); the "
                         "program is named '" + name + "'");
  std::vector<Decision> ladder_decisions;
  ladder::Plan kept = ladder::choose_plan_fast(r, hw, tiling, capacities, name, strategy, options, ladder_decisions);
  r.report = std::move(kept.report);
  for (auto& d : kept.decisions) r.decisions.push_back(std::move(d));
  for (auto& d : ladder_decisions) r.decisions.push_back(std::move(d));
  r.stacks = std::move(kept.stacks);
  r.program = std::move(kept.program);
  // The config the program is for (the configured SRAM, whichever plan of the ladder was kept).
  r.program.compiled_for = isa::CompiledFor{isa::asm_word(hw.npu.name.empty() ? "config" : hw.npu.name, "hw"),
                                            hw.mac_array.rows, hw.mac_array.cols, hw.sram.capacity_bytes,
                                            to_string(hw.mac_array.dataflow)};
  r.plan_sram_bytes = kept.figures.sram_bytes;
  warn_params_regions(r, tiling, hw.mac_array.cols, where);
  warn_weight_dtype_coverage(r, hw, where);
  warn_kv_cache_dtype_unused(r, hw, where);
  r.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

TilingOptions hardware_tiling_options(const HwConfig& hw, TilingOptions tiling) {
  if (hw.dma.burst_bytes > 0) tiling.burst_bytes = hw.dma.burst_bytes;
  // Bank-aware placement of each layer's buffers (sram_placement.hpp).
  if (tiling.sram_banks == 0) tiling.sram_banks = hw.sram.banks;
  if (tiling.sram_interleave_bytes == 0) tiling.sram_interleave_bytes = hw.sram.bank_interleave_bytes;
  // Time-based tile choice: the array (dataflow decides which shapes fill it), the core
  // clock and the peak DDR bandwidth (docs/compiler.md "Tiling").
  if (tiling.array.rows == 0) tiling.array = hw.mac_array;
  if (tiling.vector_lanes == 0) tiling.vector_lanes = hw.act_unit.lanes;
  if (tiling.core_period_ns == 0 && hw.npu.clock_mhz > 0) tiling.core_period_ns = hw.core_period_ns();
  if (tiling.ddr_bytes_per_ns == 0)
    tiling.ddr_bytes_per_ns = hw.memory.model == MemoryModel::Fixed ? hw.memory.bandwidth_gbps : hw.ddr.peak_gbps();
  // Partial sums live in the accumulator SRAM when the config has one (docs/config.md "accumulator").
  if (tiling.accumulator_bytes == 0 && hw.accumulator.present) {
    tiling.accumulator_bytes = hw.accumulator.capacity_bytes;
    tiling.accumulator_elem_bytes = hw.accumulator.bytes_per_element;
  }
  if (tiling.stream_bytes_per_ns == 0) tiling.stream_bytes_per_ns = isa::sequential_stream_gbps(hw);
  // DMA time estimates at the rate the simulated DMA + DDR achieve per engine, not the peak
  // (isa/cost/dma_time.hpp, docs/timing.md "DMA time estimate").
  if (!tiling.dma.valid()) tiling.dma = isa::dma_stream_model(hw);
  return tiling;
}

}  // namespace npu::compiler
