// The SRAM-plan ladder of compile() (sram_plans.hpp): one back end (code generation, the
// program passes, the plan's figures) per SRAM size, and the choice among them. Internal to
// the compiler library (compiler.cpp, plan_ladder.cpp, fast_ladder.cpp).
#pragma once

#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "npu/compiler/backend/codegen/codegen.hpp"
#include "npu/compiler/backend/tiling/sram_plans.hpp"
#include "npu/compiler/driver/compiler.hpp"

namespace npu::compiler::ladder {

/// One SRAM size's program, report and decisions (code generation onwards).
struct Plan {
  isa::Program program;
  CompileReport report;
  std::vector<Decision> decisions;
  std::vector<StackSummary> stacks;
  PlanFigures figures;
};

/// Code generation, cross-layer pipelining and SRAM residency for `hw` (whose SRAM capacity
/// is the one planned for) from the lowered graph in `r`. `after_layer` goes to generate()
/// (it may stop it: GenerationStopped).
Plan back_end(const CompileResult& r, const HwConfig& hw, const TilingOptions& tiling, const std::string& model,
              const Strategy& strategy, const CompileOptions& options, const LayerHook& after_layer = {});

/// Gives the LayerHook for the size at index i of the capacities (an empty one: none).
using HookFor = std::function<LayerHook(std::size_t)>;

/// One back end per SRAM capacity, side by side on plan_threads threads (each reads `r` and
/// writes its own slot). Slot i holds capacities[i]'s plan, or in `errors` its exception, which
/// stays with its size until choose_plan() reaches it. `only`, when not empty, lists the
/// indices to compile (the others stay empty, with no error).
std::vector<std::optional<Plan>> plan_sizes(const CompileResult& r, const HwConfig& hw, const TilingOptions& tiling,
                                            const std::vector<std::uint64_t>& capacities, const std::string& model,
                                            const Strategy& strategy, const CompileOptions& options,
                                            std::vector<std::exception_ptr>& errors,
                                            const std::vector<std::size_t>& only = {}, const HookFor& hook_for = {});

/// The plan to keep, walking the capacities in order (smallest first): a plan replaces the kept
/// one only where the estimates rank it better (improves_on: latency first). A smaller SRAM whose back end
/// failed with a ConfigError is no candidate; the configured SRAM's error is rethrown, as is
/// any other exception. With several capacities, `decisions` receives one sram-plans decision
/// each; `first_reason` is what the first plan kept is said to be.
Plan choose_plan(const std::vector<std::uint64_t>& capacities, std::vector<std::optional<Plan>>& plans,
                 const std::vector<std::exception_ptr>& errors, std::uint64_t configured_bytes,
                 std::vector<Decision>& decisions,
                 const std::string& first_reason = "the smallest size tried that compiles");

/// The plan choose_plan() would choose from every size compiled to the end, compiling fully
/// only the configured size S and S/2 where it can (fast_ladder.cpp): the smaller sizes are
/// generated with a PlanFiguresBound each and stopped once S/2's plan improves on every
/// completion of them. Then S/2 is kept over all of them whatever they are, so the choice is
/// S/2's and S's, as in the full ladder. Falls back to the full ladder (every size to the end)
/// with fuse-layers (stacks and residency shorten a program after generation), with
/// CompileOptions::full_sram_ladder, when S/2 fails to compile, or when a smaller size that
/// was compiled to the end is not ranked below S/2's plan. `decisions`: one sram-plans
/// decision per size (a stopped size says where it stopped).
Plan choose_plan_fast(const CompileResult& r, const HwConfig& hw, const TilingOptions& tiling,
                      const std::vector<std::uint64_t>& capacities, const std::string& model,
                      const Strategy& strategy, const CompileOptions& options, std::vector<Decision>& decisions);

}  // namespace npu::compiler::ladder
