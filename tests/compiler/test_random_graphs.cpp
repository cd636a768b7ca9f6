// Differential testing of the fusion strategies on random graphs (random_graphs.hpp): 600
// seeded graphs (a quarter under the sanitizers: random_cases.hpp), each compiled under every built-in strategy (and depth-first with each overlap mode forced) entirely on the NPU; every
// program must pass the static and DDR data-flow checks, declare exactly the graph's
// outputs and do exactly the graph's MACs (random_graphs_check.hpp says how each is derived).
// Output values are compared once the functional data path executes programs (issue 10);
// until then this is the structural half of the differential test. The long run (>= 10,000
// graphs) is tests/bench/bench_random_graphs.
#include <gtest/gtest.h>

#include "random_graphs_check.hpp"
#include "random_cases.hpp"

namespace npu::compiler {
namespace {

constexpr std::uint32_t kGraphs = 600, kParts = 4;

class RandomGraphs : public ::testing::TestWithParam<std::uint32_t> {};

TEST_P(RandomGraphs, EveryStrategyCompilesALegalProgramWithTheGraphsOutputsAndMacs) {
  const HwConfig hw = load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  const auto part = std::uint32_t(npu::test::random_cases("NPU_RANDOM_GRAPHS_COMPILE", int(kGraphs))) / kParts;
  for (std::uint32_t seed = GetParam() * part + 1; seed <= (GetParam() + 1) * part; ++seed) {
    const std::string problem = testing::check_random_graph(seed, hw);
    ASSERT_EQ(problem, "");  // stops at the first: one graph's report is enough to debug
  }
}

// The generator really makes what it promises: over the 600 graphs, counted from the graphs.
TEST(RandomGraphsGenerator, CoversTheShapesOfRealExports) {
  std::map<std::string, int> seen;
  for (std::uint32_t seed = 1; seed <= kGraphs; ++seed) {
    const Graph g = testing::RandomGraphGenerator(seed).make().graph;
    if (g.outputs.size() > 1) ++seen["several outputs"];
    for (const Node& n : g.nodes) {
      ++seen[n.op_type];
      if (n.op_type == "Conv" && std::get<std::int64_t>(n.attrs.at("group")) > 1) ++seen["grouped conv"];
      if (g.consumers(n.outputs[0]).size() > 1) ++seen["multi-consumer"];
    }
  }
  for (const char* what : {"Conv", "BatchNormalization", "Relu", "Clip", "LeakyRelu", "Sigmoid", "Mul", "Add", "Concat",
                           "MaxPool", "GlobalAveragePool", "Gemm", "Transpose", "Split", "Resize", "grouped conv", "multi-consumer",
                           "several outputs"})
    EXPECT_GE(seen[what], 30) << what;
}

INSTANTIATE_TEST_SUITE_P(Parts, RandomGraphs, ::testing::Values(0u, 1u, 2u, 3u));

}  // namespace
}  // namespace npu::compiler
