// elide-identities (transforms/canonicalize/elide_identities.cpp): an Identity or an inference
// Dropout between two nodes no longer hides them from the fusion patterns (new-user finding:
// Conv -> Dropout -> Add and MatMul -> Dropout -> bias Add stayed unfused with "no candidate").
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/transforms/pass_manager.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "test_compile_graphs.hpp"

namespace npu::compiler {
namespace {

using testing::GraphBuilder;

std::vector<std::string> ops_after_import(Graph g) {
  run_import_passes(g, {"infer-shapes", "elide-identities"}, "elide");
  std::vector<std::string> ops;
  for (const Node& n : g.nodes) ops.push_back(n.op_type);
  return ops;
}

TEST(ElideIdentities, AnIdentityOrAnInferenceDropoutBeforeAResidualAddGoes) {
  for (const char* op : {"Identity", "Dropout"}) {
    GraphBuilder b("elide");
    const std::string x = b.input("x", {1, 8, 8, 8});
    const std::string c = b.unary("mid", op, b.conv("conv", x, 8, 3, 1, 1));
    b.output(b.unary("relu", "Relu", b.binary("add", "Add", c, x)));
    EXPECT_EQ(ops_after_import(b.g), (std::vector<std::string>{"Conv", "Add", "Relu"})) << op;
    // Under residual the Conv, Add and Relu are one layer (the mid node hid the Add before).
    Graph g = b.g;
    run_import_passes(g, {"infer-shapes", "elide-identities"}, "elide");
    const CompileResult r = compile(g, testing::edge_like_hw(), builtin_strategy("residual"));
    EXPECT_EQ(r.lowered.layers.size(), 1u) << op;
  }
}

TEST(ElideIdentities, KeptWhereItsOutputIsReturnedOrItsMaskIsReadOrItIsTraining) {
  {  // a graph output keeps its name: the model returns that tensor
    GraphBuilder b("elide");
    const std::string y = b.unary("id", "Identity", b.conv("conv", b.input("x", {1, 8, 8, 8}), 8, 3, 1, 1));
    b.output(y);
    EXPECT_EQ(ops_after_import(b.g), (std::vector<std::string>{"Conv", "Identity"}));
  }
  {  // a Dropout whose mask output is read
    GraphBuilder b("elide");
    const std::string c = b.conv("conv", b.input("x", {1, 8, 8, 8}), 8, 3, 1, 1);
    b.add_tensor("d.out", {1, 8, 8, 8});
    b.add_tensor("d.mask", {1, 8, 8, 8});
    b.node("d", "Dropout", {c}, {"d.out", "d.mask"});
    b.output(b.unary("relu", "Relu", "d.out"));
    b.output(b.unary("mask_relu", "Relu", "d.mask"));
    EXPECT_EQ(ops_after_import(b.g), (std::vector<std::string>{"Conv", "Dropout", "Relu", "Relu"}));
  }
}

}  // namespace
}  // namespace npu::compiler
