// The structural differential check of one random graph (random_graphs.hpp) under every
// built-in strategy, shared by the test (test_random_graphs.cpp, hundreds of graphs) and the
// long run (tests/bench/bench_random_graphs.cpp, >= 10,000 graphs). Each program must pass
// isa::check_program and isa::check_dataflow on the given config, declare exactly the
// graph's outputs at their int8 sizes (elements x 1 B), and do exactly the graph's Conv and
// Gemm MACs as summed by hand while generating (fusion moves work, never adds or drops it).
#pragma once

#include <map>
#include <string>

#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "npu/isa/check/program_check.hpp"
#include "npu/isa/check/dataflow_check.hpp"
#include "npu/isa/check/sram_race_check.hpp"
#include "random_graphs.hpp"

namespace npu::compiler::testing {

inline std::uint64_t program_macs(const isa::Program& p) {
  std::uint64_t m = 0;
  for (const auto& in : p.instructions) {
    if (const auto* c = std::get_if<isa::ConvParams>(&in.params)) m += c->macs();
    if (const auto* g = std::get_if<isa::GemmParams>(&in.params)) m += g->macs();
  }
  return m;
}

/// "" when the graph of `seed` passes under every built-in strategy; otherwise the first
/// problem with the seed, the strategy and the graph's description.
inline std::string check_random_graph(std::uint32_t seed, const HwConfig& hw) {
  const RandomGraph rg = RandomGraphGenerator(seed).make();
  CompileOptions opt;
  opt.npu_only = true;  // every generated op runs on the NPU
  for (const Strategy& st : differential_strategies()) {
    const std::string& name = st.name;
    const std::string where = "seed " + std::to_string(seed) + ", strategy " + name + ": ";
    const std::string graph = "\ngraph:\n" + rg.description;
    CompileResult r;
    try {
      r = compile(rg.graph, hw, st, opt);
    } catch (const std::exception& e) {
      return where + "compile failed: " + e.what() + graph;
    }
    const auto issues = isa::check_program(r.program, hw);
    if (!issues.empty()) return where + std::to_string(issues.size()) + " check issues, first: " + issues[0].message + graph;
    const auto flow = isa::check_dataflow(r.program);
    if (!flow.empty()) return where + std::to_string(flow.size()) + " data-flow issues, first: " + flow[0].message + graph;
    const auto races = isa::check_sram_races(r.program);
    if (!races.empty()) return where + std::to_string(races.size()) + " SRAM races, first: " + races[0].message + graph;
    std::map<std::string, std::uint64_t> outputs;
    for (const auto& t : r.program.tensors)
      if (t.kind == isa::TensorKind::Output) outputs[t.name] = t.bytes;
    if (outputs.size() != rg.graph.outputs.size())
      return where + std::to_string(outputs.size()) + " program outputs for " + std::to_string(rg.graph.outputs.size()) +
             " graph outputs" + graph;
    for (const std::string& o : rg.graph.outputs) {
      if (!outputs.count(o)) return where + "graph output " + o + " is not a program output" + graph;
      if (outputs[o] != std::uint64_t(rg.graph.tensors.at(o).elements()))
        return where + "output " + o + " has " + std::to_string(outputs[o]) + " bytes, expected " +
               std::to_string(rg.graph.tensors.at(o).elements()) + graph;
    }
    const std::uint64_t macs = program_macs(r.program);
    // A depth-first stack computes rows band by band: halo rows more than once, rows no
    // reader needs (past a strided conv's last window) never; its summary has both figures.
    std::int64_t expected = std::int64_t(rg.conv_macs);
    for (const auto& s : r.stacks) expected += std::int64_t(s.macs) - std::int64_t(s.layer_macs);
    if (std::int64_t(macs) != expected)
      return where + "program MACs " + std::to_string(macs) + ", graph MACs " + std::to_string(rg.conv_macs) +
             " (expected " + std::to_string(expected) + " with the depth-first stacks' band rows)" + graph;
  }
  return "";
}

}  // namespace npu::compiler::testing
