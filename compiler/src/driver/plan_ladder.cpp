// The SRAM-plan ladder: one back end per size, and the choice among them (plan_ladder.hpp).
#include "driver/plan_ladder.hpp"
#include "driver/params_region_warning.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "npu/compiler/backend/schedule/pipeline.hpp"
#include "npu/compiler/backend/tiling/gemv_decisions.hpp"
#include "npu/compiler/backend/tiling/sram_residency.hpp"
#include "npu/compiler/transforms/pass_manager.hpp"

namespace npu::compiler::ladder {

namespace {

// A "cin-split" decision for each dense Conv that took the input-channel split although a
// whole-input-channel tile fits (code generation's plan_conv_layer said why), for --explain.
std::vector<Decision> split_decisions(const CodegenResult& cg) {
  std::vector<Decision> out;
  for (const LayerCodegenInfo& l : cg.layers) {
    if (l.split_reason.empty()) continue;
    Decision d;
    d.pass = "cin-split";
    d.label = l.layer;
    d.outcome = DecisionOutcome::Applied;
    d.verb = "ran " + l.tile;
    d.reason = l.split_reason;
    out.push_back(std::move(d));
  }
  return out;
}

// For the GEMV-mapping lines: each GEMM whose output tiles are narrower than the array's
// columns (and its outputs), which the mapping's whole-GEMM cycles do not see (the llama-3.2-1b
// head on the edge preset runs 4co tiles: 8x the printed cycles).
std::map<std::string, std::string> narrow_tile_notes(const LoweredGraph& lowered, const CompileReport& report,
                                                     const HwConfig& hw) {
  std::map<std::string, std::string> notes;
  std::map<std::string, const LayerReport*> by_name;
  for (const LayerReport& l : report.layers) by_name.emplace(l.layer, &l);
  for (const LayerSpec& L : lowered.layers) {
    const auto it = by_name.find(L.name);
    if (L.kind != LayerKind::Gemm || it == by_name.end()) continue;
    const int co = tile_output_channels(it->second->tile);
    if (co <= 0 || co >= hw.mac_array.cols || co >= L.geom.c_out) continue;
    notes[L.name] = fmt::format("these cycles assume output tiles as wide as the array; this layer runs {} "
                                "({} of {} columns), estimated compute {:.0f} ns (compile_report.csv compute_ns)",
                                it->second->tile, co, hw.mac_array.cols, it->second->compute_ns);
  }
  return notes;
}

}  // namespace

// Code generation onwards for one SRAM size (plan_ladder.hpp).
Plan back_end(const CompileResult& r, const HwConfig& hw, const TilingOptions& tiling, const std::string& model,
              const Strategy& strategy, const CompileOptions& options, const LayerHook& after_layer) {
  Plan plan;
  CodegenResult cg = generate(r.lowered, hw, tiling, model, strategy.name, after_layer);
  plan.report = build_report(r.lowered, cg, hw, model, strategy.name);
  const std::map<std::string, std::string> tile_notes = narrow_tile_notes(r.lowered, plan.report, hw);
  for (auto& d : gemv_decisions(r.lowered, hw, &tile_notes)) plan.decisions.push_back(std::move(d));
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
  for (auto& d : split_decisions(cg)) plan.decisions.push_back(std::move(d));
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


std::vector<std::optional<Plan>> plan_sizes(const CompileResult& r, const HwConfig& hw, const TilingOptions& tiling,
                                            const std::vector<std::uint64_t>& capacities, const std::string& model,
                                            const Strategy& strategy, const CompileOptions& options,
                                            std::vector<std::exception_ptr>& errors, const std::vector<std::size_t>& only,
                                            const HookFor& hook_for) {
  std::vector<std::optional<Plan>> plans(capacities.size());
  errors.assign(capacities.size(), nullptr);
  auto compile_size = [&](std::size_t i) {
    HwConfig hw_c = hw;
    hw_c.sram.capacity_bytes = capacities[i];
    TilingOptions t = tiling;
    if (t.sram_capacity_bytes == 0) t.sram_capacity_bytes = capacities[i];
    // Input-channel splits only at the configured SRAM: the split's search at every smaller size
    // made compiles 3.8x slower (ResNet-50 residual, edge preset). A smaller size's plan is
    // therefore the unsplit program of that size, and it replaces the configured size's only
    // when better (improves_on).
    t.cin_split = capacities[i] == hw.sram.capacity_bytes;
    const LayerHook hook = hook_for ? hook_for(i) : LayerHook{};
    try {
      plans[i] = back_end(r, hw_c, t, model, strategy, options, hook);
    } catch (...) {
      errors[i] = std::current_exception();
    }
  };
  std::vector<std::size_t> order = only;  // the indices to compile, ascending
  if (only.empty())
    for (std::size_t i = 0; i < capacities.size(); ++i) order.push_back(i);
  const unsigned hc = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t n_threads = std::min<std::size_t>(
      order.size(), options.plan_threads > 0 ? std::size_t(options.plan_threads) : std::size_t(hc));
  std::atomic<std::size_t> next{0};
  // Largest SRAM first: its plan takes longest (more candidate stacks fit), so it starts at once.
  auto worker = [&] {
    for (std::size_t k = next++; k < order.size(); k = next++) compile_size(order[order.size() - 1 - k]);
  };
  std::vector<std::thread> pool;
  for (std::size_t k = 1; k < n_threads; ++k) pool.emplace_back(worker);
  worker();
  for (std::thread& th : pool) th.join();
  return plans;
}

Plan choose_plan(const std::vector<std::uint64_t>& capacities, std::vector<std::optional<Plan>>& plans,
                 const std::vector<std::exception_ptr>& errors, std::uint64_t configured_bytes,
                 std::vector<Decision>& decisions, const std::string& first_reason) {
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
                      : figures + "; " + first_reason;
      kept = std::move(plan);
    } else {
      d.reason = fmt::format("{}; {}: a larger plan is kept only when faster beyond the {} % tie for at most as "
                             "large a share of extra DDR bytes as it saves in time, or as fast with fewer bytes",
                             figures, plan_comparison(plan->figures, kept->figures), 100 * kPlanTimeTie);
    }
    decisions.push_back(std::move(d));
  }
  return std::move(*kept);
}

}  // namespace npu::compiler::ladder
