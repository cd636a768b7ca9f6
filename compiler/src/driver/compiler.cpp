#include <algorithm>
#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/ir/graph_stats.hpp"
#include "npu/compiler/backend/tiling/gemv_decisions.hpp"
#include "backend/lowering/swiglu_lowering.hpp"
#include "backend/lowering/view_decisions.hpp"
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

/// One SRAM size's program, report and decisions (code generation onwards).
struct Plan {
  isa::Program program;
  CompileReport report;
  std::vector<Decision> decisions;
  std::vector<StackSummary> stacks;
  PlanFigures figures;
};

/// Code generation, cross-layer pipelining and SRAM residency for `hw` (whose SRAM capacity
/// is the one planned for) from the lowered graph in `r`.
Plan back_end(const CompileResult& r, const HwConfig& hw, const TilingOptions& tiling, const std::string& model,
              const Strategy& strategy, const CompileOptions& options) {
  Plan plan;
  CodegenResult cg = generate(r.lowered, hw, tiling, model, strategy.name);
  plan.report = build_report(r.lowered, cg, hw, model, strategy.name);
  for (auto& d : gemv_decisions(r.lowered, hw)) plan.decisions.push_back(std::move(d));
  for (auto& d : stack_decisions(cg.stacks)) plan.decisions.push_back(std::move(d));
  for (auto& d : declined_stack_decisions(cg.declined_stacks)) plan.decisions.push_back(std::move(d));
  for (const LayerCodegenInfo& info : cg.layers)  // a Conv over NCDHW's loop order (conv3d_plan.hpp)
    if (!info.order_reason.empty()) {
      Decision d;
      d.pass = "conv3d-loop-order";
      d.label = info.layer;
      d.outcome = DecisionOutcome::Applied;
      d.verb = "ran " + info.loop_order;
      d.reason = info.order_reason;
      plan.decisions.push_back(std::move(d));
    }
  plan.stacks = cg.stacks;
  double residency_ns = 0;
  if (options.pipeline) {
    // The program passes (program_passes()): pipeline-layers, then with fuse-layers
    // keep-resident, which keeps what the stacks still write to DDR and read back in SRAM where
    // a range is free for its lifetime (sram_residency.hpp). It needs the data tokens that
    // replace the fences, so not with --no-pipeline.
    PassContext ctx;
    ctx.model = model;
    ctx.hw = &hw;
    std::map<std::string, double> times;
    if (strategy.uses("fuse-layers")) {  // keep-resident's inputs (program_passes())
      for (const LayerReport& l : plan.report.layers)
        if (l.placement == "npu") times[l.layer] = l.compute_ns;
      double saved_by_stacks = 0;
      for (const StackSummary& st : cg.stacks) saved_by_stacks += std::max(0.0, st.layer_by_layer_ns - st.estimated_ns);
      // Residency may spend up to traffic_weight x the time the stacks saved (0: never slower
      // by the estimates; the default 1: no slower than the layers one by one).
      ctx.layer_compute_ns = &times;
      ctx.traffic_weight = strategy.traffic_weight;
      ctx.time_budget_ns = std::max(strategy.traffic_weight, 0.0) * saved_by_stacks;
    }
    const std::vector<Decision> d =
        PassManager::of_kind(PassKind::Program, program_passes(strategy, options)).run(cg.program, ctx);
    plan.decisions.insert(plan.decisions.end(), d.begin(), d.end());
    residency_ns = ctx.residency_added_ns;
  } else if (strategy.uses("fuse-layers")) {
    Decision d;  // said, not silent: the stacks' DDR tensors stay in DDR
    d.pass = "keep-resident";
    d.label = model;
    d.reason = "--no-pipeline keeps every layer's fence, and SRAM residency needs the data tokens that replace "
               "them: every intermediate the stacks write stays in DDR";
    plan.decisions.push_back(std::move(d));
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
  set_planned_bytes(plan.report, cg.program, hw);
  plan.figures = plan_figures(hw.sram.capacity_bytes, cg.program, plan.report, plan.stacks, residency_ns, hw);
  plan.program = std::move(cg.program);
  return plan;
}

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

/// One back end per SRAM capacity, side by side on plan_threads threads (each reads `r` and
/// writes its own slot). Slot i holds capacities[i]'s plan, or in `errors` its exception, which
/// stays with its size until choose_plan() reaches it.
std::vector<std::optional<Plan>> plan_sizes(const CompileResult& r, const HwConfig& hw, const TilingOptions& tiling,
                                            const std::vector<std::uint64_t>& capacities, const std::string& model,
                                            const Strategy& strategy, const CompileOptions& options,
                                            std::vector<std::exception_ptr>& errors) {
  std::vector<std::optional<Plan>> plans(capacities.size());
  errors.assign(capacities.size(), nullptr);
  auto compile_size = [&](std::size_t i) {
    HwConfig hw_c = hw;
    hw_c.sram.capacity_bytes = capacities[i];
    TilingOptions t = tiling;
    if (t.sram_capacity_bytes == 0) t.sram_capacity_bytes = capacities[i];
    // Input-channel splits only at the configured SRAM: a smaller size that needs them was no
    // candidate before they existed, and keeping it so leaves every other network's plan as it was.
    t.cin_split = capacities[i] == hw.sram.capacity_bytes;
    try {
      plans[i] = back_end(r, hw_c, t, model, strategy, options);
    } catch (...) {
      errors[i] = std::current_exception();
    }
  };
  const unsigned hc = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t n_threads = std::min<std::size_t>(
      capacities.size(), options.plan_threads > 0 ? std::size_t(options.plan_threads) : std::size_t(hc));
  std::atomic<std::size_t> next{0};
  // Largest SRAM first: its plan takes longest (more candidate stacks fit), so it starts at once.
  auto worker = [&] {
    for (std::size_t k = next++; k < capacities.size(); k = next++) compile_size(capacities.size() - 1 - k);
  };
  std::vector<std::thread> pool;
  for (std::size_t k = 1; k < n_threads; ++k) pool.emplace_back(worker);
  worker();
  for (std::thread& th : pool) th.join();
  return plans;
}

/// The plan to keep, walking the capacities in order (smallest first): a plan replaces the kept
/// one only where the estimates rank it better (improves_on: latency first). A smaller SRAM whose back end
/// failed with a ConfigError is no candidate; the configured SRAM's error is rethrown, as is
/// any other exception. With several capacities, `decisions` receives one sram-plans decision each.
Plan choose_plan(const std::vector<std::uint64_t>& capacities, std::vector<std::optional<Plan>>& plans,
                 const std::vector<std::exception_ptr>& errors, std::uint64_t configured_bytes,
                 std::vector<Decision>& decisions) {
  std::optional<Plan> kept;
  for (std::size_t i = 0; i < capacities.size(); ++i) {
    const std::uint64_t cap = capacities[i];
    if (errors[i]) {
      try {
        std::rethrow_exception(errors[i]);
      } catch (const ConfigError&) {
        if (cap == configured_bytes) throw;  // the configured SRAM: the user's error
        continue;  // a smaller SRAM's minimal tiles do not fit: no candidate
      }
    }
    std::optional<Plan>& plan = plans[i];
    if (capacities.size() == 1) {
      kept = std::move(plan);
      break;
    }
    Decision d;
    d.pass = "sram-plans";
    d.label = sram_size_text(cap) + " plan";
    const std::string figures = fmt::format("burst DDR {} B, estimated {:.3f} us", plan->figures.ddr_bytes,
                                            plan->figures.estimated_ns / 1000.0);
    if (!kept || improves_on(plan->figures, kept->figures)) {
      d.outcome = DecisionOutcome::Applied;
      d.verb = "kept";
      d.reason = kept ? fmt::format("{}; {}", figures, plan_comparison(plan->figures, kept->figures))
                      : figures + "; the smallest size tried that compiles";
      kept = std::move(plan);
    } else {
      d.reason = fmt::format("{}; {}: a larger plan is kept only when faster beyond the {} % tie for at most as "
                             "large a share of extra DDR bytes (at most {} %), or as fast with fewer bytes",
                             figures, plan_comparison(plan->figures, kept->figures), 100 * kPlanTimeTie,
                             100 * kPlanBytesAllowance);
    }
    decisions.push_back(std::move(d));
  }
  return std::move(*kept);
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
  const TilingOptions tiling = tiling_for(r, hw, strategy, options);
  // Smaller-SRAM plans stay candidates (sram_plans.hpp): the program for the configured SRAM
  // is kept only where the estimates rank it better than the one for half of it, and so on
  // down; a capacity fixed in the tiling options (tests) or --no-smaller-sram-plans compiles
  // for the configured SRAM alone.
  bool ladder = options.smaller_sram_plans && options.tiling.sram_capacity_bytes == 0;
  const std::int64_t params = ladder ? graph_stats(r.graph).params : 0;
  if (params > kSramLadderMaxParams) {
    ladder = false;
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
  std::vector<std::exception_ptr> errors;
  std::vector<std::optional<Plan>> plans = plan_sizes(r, hw, tiling, capacities, name, strategy, options, errors);
  std::vector<Decision> ladder_decisions;
  Plan kept = choose_plan(capacities, plans, errors, hw.sram.capacity_bytes, ladder_decisions);
  r.report = std::move(kept.report);
  for (auto& d : kept.decisions) r.decisions.push_back(std::move(d));
  for (auto& d : ladder_decisions) r.decisions.push_back(std::move(d));
  r.stacks = std::move(kept.stacks);
  r.program = std::move(kept.program);
  r.plan_sram_bytes = kept.figures.sram_bytes;
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
