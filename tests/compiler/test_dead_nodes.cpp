// remove-dead-nodes (transforms/canonicalize/dead_nodes.cpp): nodes whose outputs reach no
// graph output are removed at import, said in the compile's warnings, under every strategy;
// a graph whose outputs no node computes is refused; an output that is a graph input itself
// is named as such when its declared shape differs.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "npu/base/config_error.hpp"
#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/frontend/model_loader.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "test_onnx_util.hpp"
#include "tool_runner.hpp"

namespace npu::compiler {
namespace {

using npu::test::OnnxModel;

#define EXPECT_CONTAINS(text, part) EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)

// x[1,8] -> Relu r1 -> a -> Relu r2 -> b, with `outputs` as the graph outputs.
std::string relu_chain(const std::string& name, const std::vector<std::string>& outputs) {
  OnnxModel m(13);
  m.input("x", {1, 8});
  m.node("Relu", "r1", {"x"}, {"a"});
  m.node("Relu", "r2", {"a"}, {"b"});
  for (const auto& o : outputs) m.output(o);
  const std::string path = npu::test::fresh_dir("dead-nodes-" + name) + "/m.onnx";
  std::ofstream(path, std::ios::binary) << m.bytes();
  return path;
}

bool has_warning(const std::vector<std::string>& ws, const std::string& part) {
  for (const auto& w : ws)
    if (w.find(part) != std::string::npos) return true;
  return false;
}

// Output 'a': r2 (reading a, writing b) reaches no output. One node and one NPU layer remain
// under none and depth-first alike, and the compile says one node was removed, naming it.
TEST(RemoveDeadNodes, ANodeWhoseOutputNothingReadsIsRemovedAndSaid) {
  const Graph g = load_model(relu_chain("tail", {"a"}));
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].name, "r1");
  EXPECT_FALSE(g.has_tensor("b"));
  const HwConfig hw = load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  for (const char* s : {"none", "depth-first"}) {
    const CompileResult r = compile(g, hw, builtin_strategy(s));
    EXPECT_EQ(r.lowered.layers.size(), 1u) << s;
    EXPECT_TRUE(has_warning(r.warnings, "removed 1 node(s) whose outputs reach no graph output (first: Relu 'r2')"))
        << s;
  }
  // Both outputs live: nothing removed, nothing said.
  const Graph both = load_model(relu_chain("live", {"a", "b"}));
  EXPECT_EQ(both.nodes.size(), 2u);
  EXPECT_FALSE(has_warning(both.import_warnings, "removed"));
}

// Output 'x' (the input itself): nothing is left to compute. recognise-activations, earlier,
// has made Relu(Relu(x)) one ReLU node ('a' is no output here), so 1 dead node is removed.
TEST(RemoveDeadNodes, OutputsNoNodeComputesAreRefused) {
  try {
    load_model(relu_chain("sameio", {"x"}));
    FAIL() << "a graph whose output is its input was accepted";
  } catch (const ConfigError& e) {
    EXPECT_CONTAINS(e.what(), "m.onnx: error: no node computes a graph output: the outputs ('x') are graph inputs");
    EXPECT_CONTAINS(e.what(), "the 1 node(s) reach none of them");
  }
}

// Outputs 'x' declared 1x9 (the input is 1x8) and 'b': the warning says 'x' is the input itself.
TEST(RemoveDeadNodes, AnOutputThatIsTheInputIsNamedAsSuch) {
  OnnxModel m(13);
  m.input("x", {1, 8});
  m.node("Relu", "r1", {"x"}, {"b"});
  m.output("x");
  m.output("b");
  auto* tt = m.graph().mutable_output(0)->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto_DataType_FLOAT);
  for (auto d : {1, 9}) tt->mutable_shape()->add_dim()->set_dim_value(d);
  const std::string dir = npu::test::fresh_dir("dead-nodes-passthrough");
  std::ofstream(dir + "/m.onnx", std::ios::binary) << m.bytes();
  const auto r = npu::test::run_npu({"compile", dir + "/m.onnx", "--hw", "configs/edge-npu-ddr4.yaml", "-o",
                                     dir + "/p.npuasm"});
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_CONTAINS(r.output, "graph output 'x' is the graph input of that name itself, declared as an output with "
                            "shape 1x9 but the input is 1x8");
  EXPECT_EQ(r.output.find("shape inference gives"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace npu::compiler
