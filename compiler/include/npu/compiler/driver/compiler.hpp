// One-call compiler API for tools and the experiment runner:
//   CompileResult r = compile(graph, hw, builtin_strategy("conv-bn-act"));
//   isa::write_program(r.program); report_csv(r.report); format_explain(r.decisions);
#pragma once

#include <string>
#include <vector>

#include "npu/compiler/backend/codegen/codegen.hpp"
#include "npu/compiler/driver/compile_report.hpp"
#include "npu/compiler/ir/graph.hpp"
#include "npu/compiler/backend/lowering/lowering.hpp"
#include "npu/compiler/transforms/pass.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "npu/compiler/backend/tiling/tiling.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "npu/isa/instruction.hpp"

namespace npu::compiler {

struct CompileOptions {
  TilingOptions tiling;  ///< act_bytes is overridden by the hardware's MAC dtype
  /// Refuse any host placement: compile() throws ConfigError listing every host node with
  /// its reason (`--npu-only`).
  bool npu_only = false;
  /// Replace the fences between layers by their real SRAM and DDR dependencies where both
  /// layers fit in the SRAM side by side (pipeline.hpp); false keeps every fence
  /// (`--no-pipeline`, to measure what pipelining gains).
  bool pipeline = true;
  /// Also compile for S/2, S/4, ... of the configured SRAM and keep the larger SRAM's program
  /// only where the estimates rank it better in DDR bytes and time (sram_plans.hpp); false
  /// compiles for the configured SRAM alone (`--no-smaller-sram-plans`).
  bool smaller_sram_plans = true;
  /// Threads that compile the SRAM sizes of smaller_sram_plans side by side (each size's code
  /// generation is independent; the choice among them is made afterwards, smallest first, so
  /// the program does not depend on it). 0 or less: std::thread::hardware_concurrency().
  int plan_threads = 0;
  /// Compile every size of smaller_sram_plans to the end, as before issue 29 item 4. By
  /// default the sizes below S/2 stop generating once their partial figures rank them below
  /// S/2's plan whatever the rest adds (plan_bound.hpp), which chooses the same program
  /// (docs/compiler.md, "The fast ladder"); this is the reference tests compare it with.
  bool full_sram_ladder = false;
};

/// `tiling` with what it leaves unset (0) taken from the hardware: DMA burst, SRAM banks and
/// interleave, the MAC array, vector lanes, core period, memory bandwidth (memory.bandwidth_gbps
/// with memory.model fixed, else the DDR peak), sequential-stream rate and the accumulator.
/// compile() starts from it; `npu validate gemmini` runs the tiler with it.
TilingOptions hardware_tiling_options(const HwConfig& hw, TilingOptions tiling = {});

/// Share of MACs above which a compile warns that the host does real work (1 %).
constexpr double kHostMacWarnShare = 0.01;

struct CompileResult {
  isa::Program program;            ///< name = graph name, strategy = strategy name
  CompileReport report;
  std::vector<Decision> decisions; ///< every pass decision, for --explain (then one per depth-first stack)
  std::vector<StackSummary> stacks;  ///< depth-first stacks (strategies with fuse-layers)
  Graph graph;                     ///< the graph after the strategy's passes
  LoweredGraph lowered;
  /// SRAM capacity (bytes) the program was compiled for: hw.sram.capacity_bytes, or a
  /// smaller one whose plan the estimates rank no worse (sram_plans.hpp).
  std::uint64_t plan_sram_bytes = 0;
  double compile_ms = 0;           ///< wall-clock time of compile() (not written to any output)
  std::uint64_t npu_macs = 0, host_macs = 0;  ///< MACs on the NPU and on the host
  int host_nodes = 0;                         ///< nodes placed on the host
  int host_unsized = 0;  ///< host tensors sized only at run time: their work is not in host_macs
  /// The imported graph's parameter count when it is over kSramLadderMaxParams and the
  /// smaller-SRAM plan ladder was skipped for it (a warning says so); 0 otherwise.
  std::int64_t ladder_skipped_params = 0;
  /// Things a user must see (printed by the tools, kept in run summaries): host placement of
  /// more than kHostMacWarnShare of the MACs, host tensors sized only at run time.
  std::vector<std::string> warnings;
};

/// The program passes compile() runs after code generation, in order (a strategy names the
/// graph passes; these follow from it and the options): "pipeline-layers" unless
/// options.pipeline is false, then "keep-resident" when the strategy has fuse-layers (it needs
/// the pipeline's data tokens). None with --no-pipeline.
std::vector<std::string> program_passes(const Strategy& strategy, const CompileOptions& options);

/// Runs the strategy's passes on a copy of `graph`, lowers it for `hw` and generates the
/// program and its report. Deterministic: same inputs, identical program and report.
/// Throws ConfigError for an unknown pass in the strategy, a graph it cannot lower (e.g.
/// unknown shapes), a graph whose nodes all run on the host (an all-view graph compiles to
/// an empty program with a warning), a layer whose minimal tile does not fit hw.sram.capacity_bytes, and any
/// host placement under options.npu_only (every host node listed with its reason).
CompileResult compile(const Graph& graph, const HwConfig& hw, const Strategy& strategy,
                      const CompileOptions& options = {});

}  // namespace npu::compiler
