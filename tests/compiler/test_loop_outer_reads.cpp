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

using test::OnnxModel;

// x [1, 4] -> Relu -> r; Loop(M = 3, cond = true, v0 = zeros [1, 4]) whose body computes
// v + (outer ? r : its own constant) -> y.
std::string loop_model(bool reads_outer) {
  OnnxModel m(13);
  m.input("x", {1, 4});
  m.node("Relu", "relu", {"x"}, {"r"});
  m.init_int64("trips", {}, {3});
  m.init_float("v0", {1, 4}, {0, 0, 0, 0});
  onnx::TensorProto* cond = m.graph().add_initializer();  // a bool scalar: true
  cond->set_name("cond");
  cond->set_data_type(onnx::TensorProto_DataType_BOOL);
  cond->add_int32_data(1);
  onnx::NodeProto& loop = m.node("Loop", "loop", {"trips", "cond", "v0"}, {"y"});
  auto* a = loop.add_attribute();
  a->set_name("body");
  a->set_type(onnx::AttributeProto_AttributeType_GRAPH);
  onnx::GraphProto* g = a->mutable_g();
  g->set_name("body");
  for (const char* in : {"i", "cond_in", "v"}) g->add_input()->set_name(in);
  if (!reads_outer) {
    onnx::TensorProto* one = g->add_initializer();
    OnnxModel::fill_float(*one, "one", {1, 4}, {1, 1, 1, 1}, false);
  }
  auto* add = g->add_node();
  add->set_op_type("Add");
  add->set_name("body_add");
  add->add_input("v");
  add->add_input(reads_outer ? "r" : "one");
  add->add_output("v_out");
  auto* id = g->add_node();
  id->set_op_type("Identity");
  id->set_name("body_cond");
  id->add_input("cond_in");
  id->add_output("cond_out");
  for (const char* out : {"cond_out", "v_out"}) g->add_output()->set_name(out);
  m.output("y");
  return m.write(reads_outer ? "loop_outer.onnx" : "loop_own.onnx");
}

std::string loop_reason(const std::string& path) {
  LoadOptions o;
  o.dynamic_size = 4;  // the Loop's output size is known only at run time (as Mask R-CNN's, under the bound)
  const Graph g = load_model(path, o);
  const CompileResult r = compile(g, testing::edge_like_hw(), builtin_strategy("none"));
  for (const auto& h : r.lowered.host_nodes)
    if (h.name == "loop") return h.reason;
  return "(the Loop is not a host node)";
}

TEST(LoopOuterReads, ALoopWhoseBodyReadsAComputedTensorSaysItCannotBeFolded) {
  const std::string why = loop_reason(loop_model(true));
  EXPECT_NE(why.find("its subgraph reads 'r'"), std::string::npos) << why;
  EXPECT_NE(why.find("cannot be folded"), std::string::npos) << why;
}

TEST(LoopOuterReads, ALoopOverItsOwnConstantsKeepsTheAllConstantsReason) {
  const std::string why = loop_reason(loop_model(false));
  EXPECT_NE(why.find("all inputs are constants"), std::string::npos) << why;
}

}  // namespace
}  // namespace npu::compiler
