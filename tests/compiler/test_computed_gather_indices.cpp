// Integer tensors computed in the program (Faster R-CNN's RPN: TopK indices + per-level offsets
// -> Gather of a constant anchor table). The NPU has no integer data path: its layers store such
// a tensor at the activation width, so its DDR region is sized at that width (it was sized as
// int32, 4 B an element, and the program read bytes no STORE wrote: `npu simulate` refused every
// strategy of fasterrcnn_mobilenet_v3_large_320_fpn). A Gather whose indices the program
// computes is a gather LOAD with index_float=4 (docs/isa.md "LOAD gather"): its index LOAD reads
// the tensor at its own width. Token ids (a graph input, through a Reshape) are int32 indices.
// The values are checked with data in tests/functional/test_computed_gather_data.cpp.
#include <gtest/gtest.h>

#include <algorithm>

#include "npu/compiler/driver/compiler.hpp"
#include "npu/isa/check/program_check.hpp"
#include "test_compile_graphs.hpp"

namespace npu::compiler {
namespace {

using testing::GraphBuilder;

HwConfig edge() { return load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml"); }

// idx [6] int64 (a graph input) -> Add(idx, offsets) on the NPU (when `computed`) -> Gather of
// table [16, 4] -> Relu -> y [6, 4].
Graph gather_graph(bool computed) {
  GraphBuilder b("gather_indices");
  b.input("idx", {6});
  b.g.tensors.at("idx").type = ElemType::Int64;
  std::string j = "idx";
  if (computed) {
    j = "j";
    b.add_tensor(j, {6}).type = ElemType::Int64;
    b.node("add_offsets", "Add", {"idx", b.ints("offsets", {0, 0, 4, 4, 8, 8})}, {j});
  }
  b.add_tensor("rows", {6, 4});
  b.node("gather", "Gather", {b.constant("table", {16, 4}, -1.0f, 1.0f), j}, {"rows"}).attrs["axis"] = std::int64_t(0);
  b.output(b.unary("relu", "Relu", "rows"));
  return b.g;
}

const LayerReport* row(const CompileResult& c, const std::string& node) {
  for (const LayerReport& r : c.report.layers)
    if (std::find(r.covers.begin(), r.covers.end(), node) != r.covers.end()) return &r;
  return nullptr;
}

std::uint64_t declared_bytes(const CompileResult& c, const std::string& tensor) {
  for (const isa::TensorDecl& t : c.program.tensors)
    if (t.name == tensor) return t.bytes;
  return 0;
}

TEST(ComputedGatherIndices, TheProgramChecksCleanAndTheGatherIsAGatherLoadOfComputedIndices) {
  const HwConfig hw = edge();  // int8 activations: 1 B an element
  const CompileResult c = compile(gather_graph(true), hw, builtin_strategy("none"));
  const auto issues = isa::check_program(c.program, hw);
  EXPECT_TRUE(issues.empty()) << (issues.empty() ? "" : issues.front().message);
  // j: 6 elements stored by the Add layer at 1 B each; idx (a graph input) is int32: 6 x 4 B.
  EXPECT_EQ(declared_bytes(c, "j"), 6u);
  EXPECT_EQ(declared_bytes(c, "idx"), 24u);
  const LayerReport* g = row(c, "gather");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->kind, "gather");
  // The index LOAD reads j's 6 elements at 1 B (6 B), the gather LOAD 6 rows of 4 int8 (24 B).
  EXPECT_EQ(g->planned_read_bytes, 30u);
  bool float_index = false;
  for (const isa::Instruction& in : c.program.instructions)
    if (const auto* d = std::get_if<isa::DmaDesc>(&in.params); d && d->gather) float_index = d->index_float == 4;
  EXPECT_TRUE(float_index) << "the gather LOAD of computed indices does not read them as fp32 (index_float=4)";
}

TEST(ComputedGatherIndices, TokenIdsFromAGraphInputStillGatherOnTheNpu) {
  const HwConfig hw = edge();
  const CompileResult c = compile(gather_graph(false), hw, builtin_strategy("none"));
  EXPECT_TRUE(isa::check_program(c.program, hw).empty());
  const LayerReport* g = row(c, "gather");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->kind, "gather");
  // Gather LOADs read the 6 int32 indices (24 B) and the 6 rows of 4 int8 elements (24 B).
  EXPECT_EQ(g->planned_read_bytes, 48u);
}

}  // namespace
}  // namespace npu::compiler
