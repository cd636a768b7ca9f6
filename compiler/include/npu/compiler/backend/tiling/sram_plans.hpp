// Smaller-SRAM plans stay candidates (issue 11): a program compiled for an SRAM of c bytes
// touches only addresses below c, so it runs unchanged -- same instructions, same SRAM banks
// (byte a is in bank (a / bank_interleave_bytes) mod banks whatever the capacity), same time --
// on any larger SRAM. The compiler therefore also compiles for S/2, S/4, ... and keeps a larger
// capacity's program only when its estimates say it is better (improves_on: faster, for at most
// a bounded share of extra DDR bytes, or as fast with fewer bytes). A
// larger SRAM then never gives a program the estimates rank slower, and where they cannot tell
// two programs apart (pipelining more layer pairs, another SRAM layout) the smaller SRAM's
// program runs, so a sweep's latency stays flat instead of moving with placement noise.
// docs/compiler.md, "SRAM placement".
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "npu/compiler/driver/compile_report.hpp"
#include "npu/compiler/backend/schedule/depth_first.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "npu/isa/instruction.hpp"

namespace npu::compiler {

/// The smallest SRAM a smaller-SRAM candidate is compiled for: 64 KiB (the smallest size of
/// the repository's sweeps; below it most layers' minimal tiles no longer fit).
constexpr std::uint64_t kSmallestSramPlanBytes = 64 * 1024;

/// What the compiler compares between plans for different SRAM sizes.
struct PlanFigures {
  std::uint64_t sram_bytes = 0;  ///< SRAM capacity the plan was compiled for (bytes)
  /// DDR bytes as the DRAM moves them: every LOAD/STORE row rounded out to whole
  /// ddr.burst_bytes() bursts (a partial burst costs a whole one).
  std::uint64_t ddr_bytes = 0;
  /// Estimated time (ns). A layer outside a depth-first stack: max(C, M) + (C + M) / steps,
  /// with C its compute_ns from the compile report, M its burst-rounded DDR bytes / peak DDR
  /// GB/s, and (C + M) / steps the first step's load and the last step's compute that double
  /// buffering cannot hide; a stack: its StackSummary::estimated_ns; plus the net time SRAM
  /// residency's MOVEs add (keep_resident). Host layers are left out (the same in every plan),
  /// and so is cross-layer overlap: plans that differ only in it tie.
  double estimated_ns = 0;
};

/// The capacities to compile for, ascending: S = hw.sram.capacity_bytes, S/2, S/4, ... down
/// to kSmallestSramPlanBytes, each a valid SRAM for the config (it splits into sram.banks
/// banks whose size is a multiple of sram.bank_interleave_bytes); just {S} when S/2 is not.
/// Capacities a power-of-two apart share their ladders, which is what makes the choice
/// monotone over a doubling sweep.
std::vector<std::uint64_t> sram_plan_capacities(const HwConfig& hw);

/// Largest model, in parameters, compiled for every SRAM size of the ladder. The ladder holds
/// one whole program per size until it chooses, so a billion-parameter LLM (llama-2-7b's
/// 512-token prefill: about 0.56 M instructions a size) needed over 11 GB and 380 s of CPU
/// (measured 2026-12-03); above this the compile is for the configured SRAM alone and says
/// so. Every CNN of the zoo and ../shared/models (< 0.1 B) and GPT-2 up to gpt2-medium keep
/// the ladder.
inline constexpr std::int64_t kSramLadderMaxParams = 1'000'000'000;

/// Figures of a compiled program (see PlanFigures). `residency_ns`: what keep_resident
/// reported as added (0 when it did not run).
PlanFigures plan_figures(std::uint64_t sram_bytes, const isa::Program& program, const CompileReport& report,
                         const std::vector<StackSummary>& stacks, double residency_ns, const HwConfig& hw);

/// One layer's term of PlanFigures::estimated_ns, in ns: max(C, M) + (C + M) / steps, for
/// compute C (array cycles x core period) and DMA time M (ns) over `steps` pipelined steps.
/// plan_figures() sums it per layer; PlanFiguresBound sums it over the layers generated so far.
inline double layer_estimate_ns(double compute_ns, double memory_ns, int steps) {
  return std::max(compute_ns, memory_ns) + (compute_ns + memory_ns) / double(std::max(1, steps));
}

/// Estimated times within this share of each other tie (1e-4: the estimates are sums of
/// per-layer roofline figures, not finer than that; a plan 0.1 us faster in 3.7 ms is no
/// reason to change programs).
constexpr double kPlanTimeTie = 1e-4;


/// True when `candidate` (a larger SRAM's plan) is better than `kept`, latency first:
/// - its estimated time is lower by more than kPlanTimeTie, and its DDR bytes exceed the kept
///   plan's by no larger a share than it saves in time (latency first, issue 28: AlexNet's 512 KiB
///   depth-first plan, 46 % less estimated time for 0.06 % more bytes; ResNet-18 on hbm2-npu,
///   1 MiB against 512 KiB, 40 % less for 1.9 % more: until 2026-12-05 an absolute 1 % cap on
///   the extra bytes kept the 512 KiB plan, simulated 64 % slower); or
/// - the times tie (within kPlanTimeTie) and its DDR bytes are strictly lower.
/// Equal figures keep the smaller SRAM's plan.
bool improves_on(const PlanFigures& candidate, const PlanFigures& kept);

/// "46.0 % less estimated time, 0.064 % more DDR bytes than the 256 KiB plan (burst DDR ... B,
/// estimated ... us)": how `candidate` compares with `kept`, for --explain.
std::string plan_comparison(const PlanFigures& candidate, const PlanFigures& kept);

/// "1 MiB", "512 KiB" or "1000 B": a capacity for messages.
std::string sram_size_text(std::uint64_t bytes);

/// The line the tools print when a smaller SRAM's program runs ("  SRAM plan: compiled for
/// 1 MiB of the config's 2 MiB: ...", newline-terminated); "" when plan_bytes is 0 or the
/// configured capacity.
std::string sram_plan_note(std::uint64_t plan_bytes, std::uint64_t capacity_bytes);

}  // namespace npu::compiler
