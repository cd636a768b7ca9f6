// One-call compiler API for tools and the experiment runner:
//   CompileResult r = compile(graph, hw, builtin_strategy("conv-bn-act"));
//   isa::write_program(r.program); report_csv(r.report); format_explain(r.decisions);
#pragma once

#include <string>
#include <vector>

#include "npu/compiler/codegen.hpp"
#include "npu/compiler/compile_report.hpp"
#include "npu/compiler/graph.hpp"
#include "npu/compiler/lowering.hpp"
#include "npu/compiler/pass.hpp"
#include "npu/compiler/strategy.hpp"
#include "npu/compiler/tiling.hpp"
#include "npu/isa/hw_config.hpp"
#include "npu/isa/instruction.hpp"

namespace npu::compiler {

struct CompileOptions {
  TilingOptions tiling;  ///< act_bytes is overridden by the hardware's MAC dtype
};

struct CompileResult {
  isa::Program program;            ///< name = graph name, strategy = strategy name
  CompileReport report;
  std::vector<Decision> decisions; ///< every pass decision, for --explain
  Graph graph;                     ///< the graph after the strategy's passes
  LoweredGraph lowered;
  double compile_ms = 0;           ///< wall-clock time of compile() (not written to any output)
};

/// Runs the strategy's passes on a copy of `graph`, lowers it for `hw` and generates the
/// program and its report. Deterministic: same inputs, identical program and report.
/// Throws ConfigError for an unknown pass in the strategy, a graph it cannot lower (e.g.
/// unknown shapes) and a layer whose minimal tile does not fit hw.sram.capacity_bytes.
CompileResult compile(const Graph& graph, const HwConfig& hw, const Strategy& strategy,
                      const CompileOptions& options = {});

}  // namespace npu::compiler
