// Differential testing of the fusion strategies by values (the value half of the random-graph
// test; the structural half is tests/compiler/test_random_graphs.cpp). The same seeded graphs
// (tests/compiler/random_graphs.hpp: conv chains with kernels 1/3/5, strides, pads, groups,
// depthwise, bias, BN and Relu/ReLU6/LeakyRelu/SiLU/Sigmoid, residual Adds, Concat, MaxPool,
// multi-consumer tensors, graph outputs in the middle, a GlobalAveragePool + Gemm head) are
// compiled under every built-in strategy (and depth-first with each overlap mode forced) with 64 KiB of SRAM (layers tile into row bands)
// and executed with data. Strategy `none` lowers node by node; every fused strategy must give
// every graph output within 1e-5 of it (max |err| / max |ref|). A difference is a fusion
// legality bug: the message names the seed, the strategy, the output and the graph.
// NPU_RANDOM_GRAPHS=N runs seeds 1..N (default 200); NPU_RANDOM_GRAPHS_FIRST=S starts at S.
#include <gtest/gtest.h>

#include <cstdlib>

#include "functional_test_util.hpp"
#include "npu/compiler/backend/emit/ddr_image.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "random_graphs.hpp"
#include "random_cases.hpp"

namespace {

using namespace npu;

int graph_count() {
  return test::random_cases("NPU_RANDOM_GRAPHS", 200);
}

TEST(RandomGraphsData, EveryStrategyGivesTheUnfusedOutputs) {
  const HwConfig hw = test::fp32_hw(64 * 1024);
  const std::vector<compiler::Strategy> strategies = compiler::testing::differential_strategies();
  const char* first = std::getenv("NPU_RANDOM_GRAPHS_FIRST");
  const std::uint32_t seed0 = first ? std::uint32_t(std::atoi(first)) : 1u;
  int runs = 0;
  for (int g = 0; g < graph_count(); ++g) {
    const std::uint32_t seed = seed0 + std::uint32_t(g);
    const compiler::testing::RandomGraph rg = compiler::testing::RandomGraphGenerator(seed).make();
    const compiler::Graph& graph = rg.graph;
    const std::string where = "seed " + std::to_string(seed) + ", graph:\n" + rg.description;
    std::map<std::string, std::vector<float>> inputs;
    for (const std::string& in : graph.inputs)
      inputs[in] = test::random_values(std::size_t(graph.tensor(in).elements()), seed);
    std::map<std::string, std::vector<float>> ref;
    for (const compiler::Strategy& st : strategies) {
      const std::string& s = st.name;
      const compiler::CompileResult c = compiler::compile(graph, hw, st);
      const std::vector<std::string> problems = compiler::functional_problems(c);
      ASSERT_TRUE(problems.empty()) << "strategy " << s << ": " << problems.front() << "\n" << where;
      const auto r = test::run_forked(c, hw, inputs, true);
      ++runs;
      ASSERT_TRUE(r.ok) << "strategy " << s << ": " << r.error << "\n" << where;
      if (s == strategies.front().name) {
        ref = r.outputs;
        continue;
      }
      for (const auto& [name, v] : ref) {
        ASSERT_EQ(r.outputs.count(name), 1u) << "strategy " << s << ": output " << name << " missing\n" << where;
        EXPECT_LE(test::rel_err(r.outputs.at(name), test::to_double(v)), 1e-5)
            << "strategy " << s << ", graph output '" << name << "' differs from strategy " << strategies.front().name
            << "\n" << where;
      }
    }
  }
  EXPECT_EQ(runs, graph_count() * int(strategies.size()));
}

}  // namespace
