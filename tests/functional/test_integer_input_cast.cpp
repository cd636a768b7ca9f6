// An integer graph input cast to float, as an HF export casts its attention_mask (int64 ->
// Unsqueeze -> Cast(to float) -> arithmetic). Integer graph inputs are int32 in DDR (as the
// runtime feeds them, LowerCtx::int32_ids); a Cast to float used to be a zero-copy view of those
// bytes, so the float reader took the int32 words as fp32 values: m = [1, 0, 1, 3] -> Cast -> + 10
// ran as 10 10 10 10 (the words 1 and 3 are the fp32 denormals 1.4e-45 and 4.2e-45), exit 0, not
// a word said. The NPU has no int32 -> fp32 conversion: the Cast now runs on the host, whose
// reason names the input, and a run with data refuses it (host partitions are costed, not
// computed) instead of computing a wrong value.
#include <gtest/gtest.h>

#include "functional_test_util.hpp"
#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/reference/reference_interpreter.hpp"
#include "npu/compiler/transforms/strategy.hpp"

namespace {

using namespace npu;
using compiler::ElemType;
using compiler::testing::GraphBuilder;

// m int64 [1, 4] -> (Unsqueeze to [1, 1, 4] when `unsqueeze`) -> Cast(to) -> Add(ten) -> y.
GraphBuilder mask_graph(bool unsqueeze, std::int64_t to) {
  GraphBuilder b("mask_cast");
  b.input("m", {1, 4});
  b.g.tensors.at("m").type = ElemType::Int64;
  std::string x = "m";
  std::vector<std::int64_t> shape = {1, 4};
  if (unsqueeze) {
    b.node("unsq", "Unsqueeze", {"m", b.ints("axes", {1})}, {"u"});
    shape = {1, 1, 4};
    b.add_tensor("u", shape).type = ElemType::Int64;
    x = "u";
  }
  b.node("cast", "Cast", {x}, {"c"}).attrs["to"] = to;
  b.add_tensor("c", shape).type = to == 7 ? ElemType::Int64 : ElemType::Float32;
  b.add_tensor("y", shape);
  b.node("add", "Add", {"c", b.scalar("ten", 10.0f)}, {"y"});
  b.output("y");
  return b;
}

TEST(IntegerInputCast, ACastToFloatOfAnIntegerGraphInputRunsOnTheHostSayingWhy) {
  const HwConfig hw = test::fp32_hw();
  for (bool unsqueeze : {false, true}) {
    SCOPED_TRACE(unsqueeze ? "m -> Unsqueeze -> Cast" : "m -> Cast");
    const GraphBuilder b = mask_graph(unsqueeze, 1);  // FLOAT
    compiler::RefTensorMap in;
    in["m"].shape = {1, 4};
    in["m"].type = ElemType::Int64;
    in["m"].i = {1, 0, 1, 3};
    // The graph itself: 1 + 10, 0 + 10, 1 + 10, 3 + 10.
    EXPECT_EQ(compiler::run_reference(b.g, in).at("y").f, (std::vector<float>{11, 10, 11, 13}));
    const auto c = compiler::compile(b.g, hw, compiler::builtin_strategy("none"));
    ASSERT_EQ(c.lowered.host_nodes.size(), 1u);
    EXPECT_EQ(c.lowered.host_nodes[0].name, "cast");
    EXPECT_NE(c.lowered.host_nodes[0].reason.find("integer graph input 'm'"), std::string::npos)
        << c.lowered.host_nodes[0].reason;
    EXPECT_NE(c.lowered.host_nodes[0].reason.find("int32"), std::string::npos);
    EXPECT_EQ(std::count(c.lowered.aliases.begin(), c.lowered.aliases.end(), "cast"), 0);
    const auto r = test::run_forked(c, hw, {{"m", {1, 0, 1, 3}}}, true);
    EXPECT_FALSE(r.ok) << "a run with data must refuse, not compute " << ::testing::PrintToString(r.outputs);
    EXPECT_NE(r.error.find("host"), std::string::npos) << r.error;
  }
}

TEST(IntegerInputCast, ACastToAnIntegerTypeStaysAViewOnTheNpu) {
  // Cast(to INT64) keeps the int32 ids as they are (IdsViewsGather reads them through it): no host.
  const auto c = compiler::compile(mask_graph(true, 7).g, test::fp32_hw(), compiler::builtin_strategy("none"));
  for (const auto& h : c.lowered.host_nodes) EXPECT_NE(h.name, "cast") << h.reason;
}

}  // namespace
