// Gather of a computed tensor by constant indices as a MOVE (layout_views.cpp gather_view):
// ViT's and Swin's class token, x[:, 0], was a costed-only copy, so their `npu verify` stopped
// (docs/results.md "Torchvision set (issue 28)"). A scalar index drops the axis; a 1-D run of
// evenly stepping indices reads the axis with that step; any other index list stays a costed
// copy that functional_problems names.
#include <gtest/gtest.h>

#include "functional_test_util.hpp"
#include "npu/compiler/backend/emit/ddr_image.hpp"
#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "test_compile_graphs.hpp"

namespace {

using namespace npu;
using compiler::testing::GraphBuilder;
using V = std::vector<std::int64_t>;

/// x [1, 5, 4] -> Relu -> Gather(axis, indices) -> y (shape `y_shape`); `scalar`: the indices
/// are a rank-0 tensor holding idx[0].
GraphBuilder gather_graph(std::int64_t axis, V idx, bool scalar, V y_shape) {
  GraphBuilder b("gather");
  b.input("x", {1, 5, 4});
  b.add_tensor("r", {1, 5, 4});
  b.node("relu", "Relu", {"x"}, {"r"});
  b.ints("i", idx);
  if (scalar) b.g.tensors.at("i").shape = {};
  b.add_tensor("y", y_shape);
  b.node("gather", "Gather", {"r", "i"}, {"y"}).attrs["axis"] = axis;
  b.output("y");
  return b;
}

/// y for x = 0..19 (non-negative: the Relu keeps it), run on the NPU with data.
std::vector<float> run(const GraphBuilder& b) {
  const HwConfig hw = test::fp32_hw();
  const auto c = compiler::compile(b.g, hw, compiler::builtin_strategy("none"));
  const auto problems = compiler::functional_problems(c);
  EXPECT_TRUE(problems.empty()) << problems.front();
  std::vector<float> x(20);
  for (int i = 0; i < 20; ++i) x[std::size_t(i)] = float(i);
  const auto r = test::run_forked(c, hw, {{"x", x}}, true);
  EXPECT_TRUE(r.ok) << r.error;
  return r.ok ? r.outputs.at("y") : std::vector<float>{};
}

TEST(GatherViewsData, AScalarIndexPicksOneRowByHand) {
  // x[0, 0, :] = 0 1 2 3 (ViT's class token); x[0, -1, :] = row 4 = 16 .. 19.
  EXPECT_EQ(run(gather_graph(1, {0}, true, {1, 4})), (std::vector<float>{0, 1, 2, 3}));
  EXPECT_EQ(run(gather_graph(1, {-1}, true, {1, 4})), (std::vector<float>{16, 17, 18, 19}));
}

TEST(GatherViewsData, AScalarIndexOnTheInnerAxisStridesByHand) {
  // x[0, :, 1]: element 1 of each row of 4 -> 1, 5, 9, 13, 17.
  EXPECT_EQ(run(gather_graph(2, {1}, true, {1, 5})), (std::vector<float>{1, 5, 9, 13, 17}));
}

TEST(GatherViewsData, EvenlySteppingIndicesReadWithThatStepByHand) {
  // rows 1 and 3 (step 2): 4 .. 7, then 12 .. 15.
  EXPECT_EQ(run(gather_graph(1, {1, 3}, false, {1, 2, 4})),
            (std::vector<float>{4, 5, 6, 7, 12, 13, 14, 15}));
}

TEST(GatherViewsData, OtherIndexListsStayACostedCopyAndAreNamed) {
  // 0, 2, 3: steps 2 then 1, no single stride.
  const GraphBuilder b = gather_graph(1, {0, 2, 3}, false, {1, 3, 4});
  const auto c = compiler::compile(b.g, test::fp32_hw(), compiler::builtin_strategy("none"));
  const auto p = compiler::functional_problems(c);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_NE(p[0].find("layer 'gather' (Gather) is a layout copy"), std::string::npos) << p[0];
}

}  // namespace
