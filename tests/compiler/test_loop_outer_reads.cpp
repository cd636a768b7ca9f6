// A Loop whose inputs are constants but whose body reads a tensor of the enclosing graph (ONNX
// allows a body to name outer-scope tensors without listing them): Mask R-CNN's
// paste_masks_in_image Loop lists only constants while its body reads the masks and boxes.
// Such a Loop cannot be folded at import (its result depends on the data); the host reason says
// so and names the tensor, instead of "all inputs are constants (an op the front-end does not
// fold)". A Loop whose body reads nothing outside keeps that reason.
#include <gtest/gtest.h>

#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/frontend/model_loader.hpp"
#include "test_compile_graphs.hpp"
#include "test_onnx_util.hpp"

namespace npu::compiler {
namespace {


// x [1, 4] -> Relu -> r; Loop(trips = 3, cond = true, v0 = zeros [1, 4]) -> y [1, 4], whose body
// computes v + r (`reads_outer`: r of the enclosing graph) or v + its own constant ones. The IR
// node carries the ONNX NodeProto with the body, as the importer keeps it (Node::onnx_proto).
Graph loop_graph(bool reads_outer) {
  testing::GraphBuilder b("loop");
  b.input("x", {1, 4});
  b.add_tensor("r", {1, 4});
  b.node("relu", "Relu", {"x"}, {"r"});
  b.ints("trips", {3});
  Tensor& cond = b.add_tensor("cond", {}, true);
  cond.type = ElemType::Bool;
  cond.int_data = {1};
  Tensor& v0 = b.add_tensor("v0", {1, 4}, true);
  v0.float_data.assign(4, 0.0f);
  b.add_tensor("y", {1, 4});
  onnx::NodeProto np;
  np.set_op_type("Loop");
  np.set_name("loop");
  for (const char* in : {"trips", "cond", "v0"}) np.add_input(in);
  np.add_output("y");
  auto* a = np.add_attribute();
  a->set_name("body");
  a->set_type(onnx::AttributeProto_AttributeType_GRAPH);
  onnx::GraphProto* g = a->mutable_g();
  g->set_name("body");
  for (const char* in : {"i", "cond_in", "v"}) g->add_input()->set_name(in);
  if (!reads_outer) test::OnnxModel::fill_float(*g->add_initializer(), "one", {1, 4}, {1, 1, 1, 1}, false);
  auto* add = g->add_node();
  add->set_op_type("Add");
  add->add_input("v");
  add->add_input(reads_outer ? "r" : "one");
  add->add_output("v_out");
  auto* id = g->add_node();
  id->set_op_type("Identity");
  id->add_input("cond_in");
  id->add_output("cond_out");
  for (const char* out : {"cond_out", "v_out"}) g->add_output()->set_name(out);
  b.node("loop", "Loop", {"trips", "cond", "v0"}, {"y"}).onnx_proto = np.SerializeAsString();
  b.output("y");
  return b.g;
}

std::string loop_reason(bool reads_outer) {
  const CompileResult r = compile(loop_graph(reads_outer), testing::edge_like_hw(), builtin_strategy("none"));
  for (const auto& h : r.lowered.host_nodes)
    if (h.name == "loop") return h.reason;
  return "(the Loop is not a host node)";
}

TEST(LoopOuterReads, ALoopWhoseBodyReadsAComputedTensorSaysItCannotBeFolded) {
  const std::string why = loop_reason(true);
  EXPECT_NE(why.find("its subgraph reads 'r'"), std::string::npos) << why;
  EXPECT_NE(why.find("cannot be folded"), std::string::npos) << why;
}

TEST(LoopOuterReads, ALoopOverItsOwnConstantsKeepsTheAllConstantsReason) {
  const std::string why = loop_reason(false);
  EXPECT_NE(why.find("all inputs are constants"), std::string::npos) << why;
}

}  // namespace
}  // namespace npu::compiler
