// The fast SRAM-plan ladder: the full ladder's choice with the sizes below S/2 generated only
// until they rank below S/2's plan (plan_ladder.hpp choose_plan_fast, plan_bound.hpp; issue 29
// item 4). Why the choice is the same: choose_plan() walks the sizes smallest first and keeps
// the first that compiles, then replaces the kept plan k by a larger one p where
// improves_on(p, k). Let P be S/2's plan. If improves_on(P, q) holds for every smaller plan q
// that compiles, then whichever of them is kept when the walk reaches S/2, P replaces it (and
// P is kept first when none compiles), so the walk continues from P exactly as if the smaller
// sizes had been compiled to the end. improves_on_every_completion(P, bound) proves
// improves_on(P, q) from a lower bound on q's figures (plan_bound.hpp), so a size can stop as
// soon as its bound does.
#include <memory>

#include <fmt/format.h>

#include "driver/plan_ladder.hpp"
#include "npu/compiler/backend/tiling/plan_bound.hpp"

namespace npu::compiler::ladder {

namespace {

// Every size compiled to the end, then choose_plan() (the ladder before issue 29 item 4).
Plan full_ladder(const CompileResult& r, const HwConfig& hw, const TilingOptions& tiling,
                 const std::vector<std::uint64_t>& caps, const std::string& model, const Strategy& strategy,
                 const CompileOptions& options, std::vector<Decision>& decisions) {
  std::vector<std::exception_ptr> errors;
  std::vector<std::optional<Plan>> plans = plan_sizes(r, hw, tiling, caps, model, strategy, options, errors);
  return choose_plan(caps, plans, errors, hw.sram.capacity_bytes, decisions);
}

// Compiles the sizes at `missing` to the end, into `plans` and `errors` (whose other slots
// are kept), then choose_plan() over all of them: the full ladder's choice and decisions.
Plan complete_and_choose(const CompileResult& r, const HwConfig& hw, const TilingOptions& tiling,
                         const std::vector<std::uint64_t>& caps, const std::string& model, const Strategy& strategy,
                         const CompileOptions& options, std::vector<std::optional<Plan>>& plans,
                         std::vector<std::exception_ptr>& errors, const std::vector<std::size_t>& missing,
                         std::vector<Decision>& decisions) {
  if (!missing.empty()) {
    std::vector<std::exception_ptr> more_errors;
    std::vector<std::optional<Plan>> more =
        plan_sizes(r, hw, tiling, caps, model, strategy, options, more_errors, missing);
    for (std::size_t i : missing) {
      plans[i] = std::move(more[i]);
      errors[i] = more_errors[i];
    }
  }
  return choose_plan(caps, plans, errors, hw.sram.capacity_bytes, decisions);
}

// How a size below S/2 ended: compiled (its plan in the caller's slot), stopped by its bound,
// or failed with a ConfigError (no candidate, as in choose_plan()). Any other exception is
// rethrown, as choose_plan() would.
enum class SmallEnd { Compiled, Stopped, Failed };

SmallEnd small_end(const std::exception_ptr& error) {
  if (!error) return SmallEnd::Compiled;
  try {
    std::rethrow_exception(error);
  } catch (const GenerationStopped&) {
    return SmallEnd::Stopped;
  } catch (const ConfigError&) {
    return SmallEnd::Failed;
  }
}

Decision small_decision(std::uint64_t cap, const std::string& reason) {
  Decision d;
  d.pass = "sram-plans";
  d.label = sram_size_text(cap) + " plan";
  d.reason = reason;
  return d;
}

// The sram-plans decision of a size below S/2 that `pivot` (S/2's plan) ranks above.
Decision ranked_below(std::uint64_t cap, SmallEnd end, const std::optional<Plan>& plan, const PlanFiguresBound* bound,
                      std::size_t layers, const PlanFigures& pivot) {
  const std::string piv = fmt::format("the {} plan (burst DDR {} B, estimated {:.3f} us)",
                                      sram_size_text(pivot.sram_bytes), pivot.ddr_bytes, pivot.estimated_ns / 1000.0);
  if (end == SmallEnd::Compiled)
    return small_decision(cap, fmt::format("burst DDR {} B, estimated {:.3f} us; {} improves on it",
                                           plan->figures.ddr_bytes, plan->figures.estimated_ns / 1000.0, piv));
  const PlanFiguresBound& b = *bound;
  return small_decision(
      cap, fmt::format("not compiled to the end: after {} of {} layers it already moves at least {} B (burst DDR) "
                       "and is estimated at least {:.3f} us, so {} improves on it whatever its other layers add "
                       "(the full ladder's choice: CompileOptions::full_sram_ladder)",
                       b.layers_done(), layers, b.figures().ddr_bytes, b.figures().estimated_ns / 1000.0, piv));
}

// The sizes below the pivot m and what is known of them: each is Failed, Stopped (its bound
// when it stopped in bounds[i]) or Compiled (its plan in plans[i]).
struct Ladder {
  std::vector<std::optional<Plan>> plans;
  std::vector<std::exception_ptr> errors;
  std::vector<SmallEnd> ends;
  std::vector<std::unique_ptr<PlanFiguresBound>> bounds;
  std::vector<bool> tried;  // generated (with a bound) at least once
};

// One round against `pivot` (the plan at index m): generates, with a bound each, the sizes below
// m never tried and those stopped whose bound `pivot` does not rank below; returns whether
// every size below m is failed, or ranked below `pivot` (stopped, or compiled and improved on).
bool rank_below_pivot(const CompileResult& r, const HwConfig& hw, const TilingOptions& tiling,
                      const std::vector<std::uint64_t>& caps, const std::string& model, const Strategy& strategy,
                      const CompileOptions& options, std::size_t m, const PlanFigures& pivot, Ladder& l) {
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < m; ++i)
    if (!l.tried[i] || (l.ends[i] == SmallEnd::Stopped && !improves_on_every_completion(pivot, l.bounds[i]->figures())))
      todo.push_back(i);
  for (std::size_t i : todo) {
    HwConfig hw_c = hw;
    hw_c.sram.capacity_bytes = caps[i];
    l.bounds[i] = std::make_unique<PlanFiguresBound>(caps[i], r.lowered, hw_c);
  }
  const HookFor hook_for = [&](std::size_t i) -> LayerHook {
    PlanFiguresBound* b = l.bounds[i].get();
    return [b, &pivot](std::size_t li, const CodegenResult& so_far) {
      const PlanFigures& f = b->update(li, so_far);
      return b->valid() && improves_on_every_completion(pivot, f);
    };
  };
  if (!todo.empty()) {
    std::vector<std::exception_ptr> errs;
    std::vector<std::optional<Plan>> got = plan_sizes(r, hw, tiling, caps, model, strategy, options, errs, todo, hook_for);
    for (std::size_t i : todo) {
      l.ends[i] = small_end(errs[i]);
      l.plans[i] = std::move(got[i]);
      l.errors[i] = l.ends[i] == SmallEnd::Stopped ? nullptr : errs[i];
      l.tried[i] = true;
    }
  }
  bool all_below = true;
  for (std::size_t i = 0; i < m; ++i)
    if (l.ends[i] == SmallEnd::Compiled) all_below = all_below && improves_on(pivot, l.plans[i]->figures);
  return all_below;
}

}  // namespace

Plan choose_plan_fast(const CompileResult& r, const HwConfig& hw, const TilingOptions& tiling,
                      const std::vector<std::uint64_t>& caps, const std::string& model, const Strategy& strategy,
                      const CompileOptions& options, std::vector<Decision>& decisions) {
  const std::size_t n = caps.size();
  // Stacks and SRAM residency (fuse-layers) shorten a program after generation: no bound.
  if (options.full_sram_ladder || n < 3 || strategy.uses("fuse-layers"))
    return full_ladder(r, hw, tiling, caps, model, strategy, options, decisions);
  Ladder l;
  l.plans = plan_sizes(r, hw, tiling, caps, model, strategy, options, l.errors, {n - 2, n - 1});
  l.ends.assign(n, SmallEnd::Compiled);
  l.bounds.resize(n);
  l.tried.assign(n, false);
  // The pivot m starts at S/2. Where a smaller plan is not ranked below it (a tie: MobileNetV2's
  // 256 KiB and 512 KiB plans), the pivot moves down one size, compiled to the end, and the
  // sizes below are ranked against it (a stopped size again only if its bound is not below it).
  std::size_t m = n - 2;
  for (;;) {
    if (l.errors[m]) {  // no pivot plan: every size to the end, as the full ladder
      std::vector<std::size_t> missing;
      for (std::size_t i = 0; i < m; ++i)
        if (!l.tried[i] || l.ends[i] == SmallEnd::Stopped) missing.push_back(i);
      return complete_and_choose(r, hw, tiling, caps, model, strategy, options, l.plans, l.errors, missing, decisions);
    }
    if (rank_below_pivot(r, hw, tiling, caps, model, strategy, options, m, l.plans[m]->figures, l)) break;
    --m;
    if (l.ends[m] == SmallEnd::Stopped) {  // the new pivot, to the end
      std::vector<std::exception_ptr> errs;
      std::vector<std::optional<Plan>> got = plan_sizes(r, hw, tiling, caps, model, strategy, options, errs, {m});
      l.plans[m] = std::move(got[m]);
      l.errors[m] = errs[m];
    }
  }
  const PlanFigures pivot = l.plans[m]->figures;
  bool any_candidate = false;
  for (std::size_t i = 0; i < m; ++i) {
    if (l.ends[i] == SmallEnd::Failed) continue;  // as choose_plan(): no candidate, no decision
    any_candidate = true;
    decisions.push_back(ranked_below(caps[i], l.ends[i], l.plans[i], l.bounds[i].get(), r.lowered.layers.size(), pivot));
  }
  const std::vector<std::uint64_t> top(caps.begin() + std::ptrdiff_t(m), caps.end());
  std::vector<std::optional<Plan>> top_plans;
  for (std::size_t i = m; i < n; ++i) top_plans.push_back(std::move(l.plans[i]));
  const std::vector<std::exception_ptr> top_errors(l.errors.begin() + std::ptrdiff_t(m), l.errors.end());
  return choose_plan(top, top_plans, top_errors, hw.sram.capacity_bytes, decisions,
                     any_candidate ? "it improves on every smaller size's plan (above)"
                                   : "the smallest size tried that compiles");
}

}  // namespace npu::compiler::ladder
