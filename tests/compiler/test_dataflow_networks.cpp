// DDR data-flow legality of every compiled program (isa::check_dataflow): for the zoo
// networks and tiny_convnet under every built-in strategy, each LOAD of an intermediate or
// output tensor reads only bytes a STORE wrote before it (queue order + tokens), and every
// output tensor is written whole. A fusion that drops a tensor still read from DDR, or a
// schedule that loads before the producing store is ordered, fails here.
#include <gtest/gtest.h>

#include <string>

#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/frontend/model_loader.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "npu/isa/check/dataflow_check.hpp"
#include "npu/isa/check/sram_race_check.hpp"

namespace npu::compiler {
namespace {

const std::string kDataflowEdge = std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml";

class DataflowNetworks : public ::testing::TestWithParam<std::string> {};

TEST_P(DataflowNetworks, EveryStrategyReadsOnlyStoredBytesAndWritesEveryOutput) {
  const std::string source = GetParam() == "tiny_convnet" ? std::string(NPU_SOURCE_DIR) + "/tests/data/tiny_convnet.onnx"
                                                           : GetParam();
  const Graph graph = load_model(source);
  const HwConfig hw = load_hw_config(kDataflowEdge);
  for (const std::string& name : builtin_strategy_names()) {
    const CompileResult r = compile(graph, hw, builtin_strategy(name));
    const auto issues = isa::check_dataflow(r.program);
    EXPECT_TRUE(issues.empty()) << GetParam() << " / " << name << ": " << issues.size() << " issues, first: "
                                << (issues.empty() ? "" : issues[0].message);
    const auto races = isa::check_sram_races(r.program);
    EXPECT_TRUE(races.empty()) << GetParam() << " / " << name << ": " << races.size() << " SRAM races, first: "
                               << (races.empty() ? "" : races[0].message);
    int outputs = 0;
    for (const auto& t : r.program.tensors) outputs += t.kind == isa::TensorKind::Output;
    EXPECT_EQ(outputs, int(graph.outputs.size())) << GetParam() << " / " << name;
  }
}

// The check catches a real schedule error: in tiny_convnet's `none` program, point the first
// LOAD of layer1.bn (which reads layer1.conv_out, 8192 B) at layer2.conv_out (also 8192 B),
// which layer2.conv stores only later. Tokens are untouched, so only the data flow is wrong.
TEST(DataflowNetworks, ALoadOfATensorStoredLaterIsCaughtInACompiledProgram) {
  const Graph graph = load_model(std::string(NPU_SOURCE_DIR) + "/tests/data/tiny_convnet.onnx");
  CompileResult r = compile(graph, load_hw_config(kDataflowEdge), builtin_strategy("none"));
  ASSERT_TRUE(isa::check_dataflow(r.program).empty());
  std::uint64_t from = 0, to = 0;
  for (const auto& t : r.program.tensors) {
    if (t.name == "layer1.conv_out") from = t.ddr_addr;
    if (t.name == "layer2.conv_out") to = t.ddr_addr;
  }
  ASSERT_NE(from, to);
  std::size_t mutated = 0;
  for (std::size_t i = 0; i < r.program.instructions.size(); ++i) {
    auto& in = r.program.instructions[i];
    if (in.op == isa::Opcode::Load && in.layer == "layer1.bn" && in.tensor == "layer1.conv_out") {
      in.tensor = "layer2.conv_out";
      auto& d = std::get<isa::DmaDesc>(in.params);
      d.ddr_addr = d.ddr_addr - from + to;
      mutated = i;
      break;
    }
  }
  ASSERT_GT(mutated, 0u);
  const auto issues = isa::check_dataflow(r.program);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].index, mutated);
  EXPECT_NE(issues[0].message.find("reads intermediate tensor 'layer2.conv_out'"), std::string::npos)
      << issues[0].message;
}

// The SRAM race check catches a real token error: in tiny_convnet's `conv-bn-act` program,
// drop the ld2cp wait of the first compute instruction that has one. Its input tile, written
// by the LOAD that pushed that token, is then read with nothing ordering the two (every later
// wait also pairs with one push earlier, so more races follow; the first is this one).
TEST(DataflowNetworks, ADroppedTokenWaitIsCaughtAsAnSramRace) {
  const Graph graph = load_model(std::string(NPU_SOURCE_DIR) + "/tests/data/tiny_convnet.onnx");
  CompileResult r = compile(graph, load_hw_config(kDataflowEdge), builtin_strategy("conv-bn-act"));
  ASSERT_TRUE(isa::check_sram_races(r.program).empty());
  std::size_t mutated = 0;
  for (std::size_t i = 0; i < r.program.instructions.size() && mutated == 0; ++i) {
    auto& in = r.program.instructions[i];
    if (in.queue() != isa::Queue::Compute) continue;
    for (auto it = in.wait.begin(); it != in.wait.end(); ++it)
      if (it->from == isa::Queue::Load) {
        in.wait.erase(it);
        mutated = i;
        break;
      }
  }
  ASSERT_GT(mutated, 0u);
  const auto issues = isa::check_sram_races(r.program);
  ASSERT_FALSE(issues.empty());
  EXPECT_EQ(issues[0].index, mutated);
  EXPECT_EQ(issues[0].kind, isa::CheckKind::SramRace);
  EXPECT_NE(issues[0].message.find("push a token ld2cp after"), std::string::npos) << issues[0].message;
}

INSTANTIATE_TEST_SUITE_P(Zoo, DataflowNetworks,
                         ::testing::Values("tiny_convnet", "resnet18", "resnet50", "mobilenet_v2", "yolov5s"));

}  // namespace
}  // namespace npu::compiler
