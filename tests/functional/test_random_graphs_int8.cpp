// Differential testing in int8 (issue 10: "outputs must equal the reference", every strategy):
// the seeded random graphs of tests/compiler/random_graphs.hpp (conv chains with kernels 1/3/5,
// strides, pads, groups, depthwise, bias, BN folded or not, Relu / ReLU6 / LeakyRelu / SiLU /
// Sigmoid, residual Adds, Concat, MaxPool, multi-consumer tensors, graph outputs in the middle,
// GlobalAveragePool + Gemm heads) are post-training quantised per strategy (4 seeded calibration
// samples), compiled for the edge preset's int8 array with 64 KiB of SRAM (layers tile into row
// bands) and executed with int8 data in a forked child. Every graph output must equal the
// integer reference interpreter bit for bit: a difference is a codegen, tiling, fusion or
// data-path bug, and the message names the seed, the strategy and the graph.
// NPU_RANDOM_GRAPHS_INT8=N runs seeds 1..N (default 60); NPU_RANDOM_GRAPHS_FIRST=S starts at S.
#include <gtest/gtest.h>

#include <cstdlib>

#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/quantize/calibration.hpp"
#include "npu/compiler/quantize/ptq.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "npu/sim/verify/verify.hpp"
#include "random_graphs.hpp"
#include "random_cases.hpp"

namespace {

using namespace npu;

int int8_graph_count() {
  return test::random_cases("NPU_RANDOM_GRAPHS_INT8", 60);
}

TEST(RandomGraphsInt8, EveryStrategyIsBitExactWithTheIntegerReference) {
  HwConfig hw = load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  ASSERT_EQ(hw.mac_array.dtype, DType::Int8);
  hw.sram.capacity_bytes = 64 * 1024;
  const std::vector<compiler::Strategy> strategies = compiler::testing::differential_strategies();
  const char* first = std::getenv("NPU_RANDOM_GRAPHS_FIRST");
  const std::uint32_t seed0 = first ? std::uint32_t(std::atoi(first)) : 1u;
  int bit_exact = 0;
  for (int i = 0; i < int8_graph_count(); ++i) {
    const std::uint32_t seed = seed0 + std::uint32_t(i);
    const compiler::testing::RandomGraph rg = compiler::testing::RandomGraphGenerator(seed).make();
    const compiler::Graph& g = rg.graph;
    const std::string where = "seed " + std::to_string(seed) + ", graph:\n" + rg.description;
    const auto calib = compiler::generate_calibration(g, seed, 4);
    const compiler::RefTensorMap in = compiler::generate_calibration(g, seed + 100000, 1).at(0);
    for (const compiler::Strategy& st : strategies) {
      const std::string& s = st.name;
      const compiler::Graph qg = compiler::quantize_graph(g, st, calib).graph;
      const sim::Int8Check r = sim::check_int8_execution(compiler::compile(qg, hw, st), hw, qg, in);
      EXPECT_EQ(r.status, "bit-exact") << "strategy " << s << "\n" << where;
      bit_exact += r.status == "bit-exact";
    }
  }
  EXPECT_EQ(bit_exact, int8_graph_count() * int(strategies.size()));
}

}  // namespace
