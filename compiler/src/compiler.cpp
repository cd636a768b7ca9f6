#include "npu/compiler/compiler.hpp"

#include <chrono>

#include "npu/compiler/pass_manager.hpp"

namespace npu::compiler {

CompileResult compile(const Graph& graph, const HwConfig& hw, const Strategy& strategy,
                      const CompileOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  if (hw.sram.capacity_bytes == 0)
    throw ConfigError(hw.source + ": error: sram.capacity is 0; the compiler needs the SRAM size to tile");
  CompileResult r;
  r.graph = graph;
  const PassManager pm = PassManager::from_names(strategy.passes);
  r.decisions = pm.run(r.graph);
  r.lowered = lower(r.graph, hw);
  TilingOptions tiling = options.tiling;
  tiling.act_bytes = r.lowered.act_bytes;
  if (hw.dma.burst_bytes > 0) tiling.burst_bytes = hw.dma.burst_bytes;
  CodegenResult cg = generate(r.lowered, hw, tiling, graph.name, strategy.name);
  r.report = build_report(r.lowered, cg, hw, graph.name, strategy.name);
  r.program = std::move(cg.program);
  r.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace npu::compiler
