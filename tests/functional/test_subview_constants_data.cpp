// A constant the program reads only through subviews must still be in the DDR image.
// Swin's shifted-window attention adds a mask [1, nW, 1, 49, 49] to scores [1, nW, heads, 49,
// 49]: the broadcast over heads with a mask that differs per window is lowered as one ELTWISE
// layer per window, each LOADing its window's slice "mask@OFFSET+BYTES". The DDR image used to
// write only constants placed under their own name, so the mask read as zeros in DDR and swin_t
// failed verify by exactly the mask's -100 (docs/results.md). Values against a direct loop.
#include <gtest/gtest.h>

#include <algorithm>

#include "functional_test_util.hpp"
#include "npu/compiler/quantize/calibration.hpp"
#include "npu/compiler/quantize/ptq.hpp"
#include "backend/emit/placed_constants.hpp"
#include "npu/compiler/backend/emit/ddr_image.hpp"

namespace {

using namespace npu;
using compiler::testing::GraphBuilder;
using test::fp32_hw;
using test::random_values;

// scores [1, 4, 3, 5, 5] + mask [1, 4, 1, 5, 5] (a constant, values in [-100, -50] so that a
// mask read as zeros is off by at least 50 everywhere).
struct WindowMaskAdd {
  GraphBuilder b;
  WindowMaskAdd() {
    b.input("scores", {1, 4, 3, 5, 5});
    b.constant("mask", {1, 4, 1, 5, 5}, -100.0f, -50.0f);
    b.add_tensor("y", {1, 4, 3, 5, 5});
    b.node("add", "Add", {"scores", "mask"}, {"y"});
    b.output("y");
  }
};

// Whether some place of the program is a subview of `root` ("root@OFFSET+BYTES").
bool read_through_subviews(const compiler::CompileResult& c, const std::string& root) {
  for (const auto& [name, place] : c.lowered.place)
    if (place.root == root && name.rfind(root + "@", 0) == 0) return true;
  return false;
}

TEST(SubviewConstantsData, APerWindowMaskReadThroughSubviewsIsInTheDdrImage) {
  WindowMaskAdd m;
  const HwConfig hw = fp32_hw(64 * 1024);
  const auto c = compiler::compile(m.b.g, hw, compiler::builtin_strategy("none"));
  ASSERT_TRUE(read_through_subviews(c, "mask")) << "the case this test is for: per-window slices of the mask";
  const auto sv = random_values(300, 1);
  const std::vector<float>& mv = m.b.g.tensor("mask").float_data;
  // The image holds the whole mask (4 x 25 x 4 B = 400 B) once, at the mask region's address.
  int segments = 0;
  for (const compiler::DdrSegment& s : compiler::ddr_image(c, {{"scores", sv}}))
    if (s.what == "mask") {
      ++segments;
      EXPECT_EQ(s.bytes.size(), 400u);
      EXPECT_EQ(compiler::decode_f32(s.bytes), mv);
    }
  EXPECT_EQ(segments, 1);
  const auto r = test::run_forked(c, hw, {{"scores", sv}}, true);
  ASSERT_TRUE(r.ok) << r.error;
  const auto& out = r.outputs.at("y");
  ASSERT_EQ(out.size(), 300u);
  // y[w, h, i] = scores[w, h, i] + mask[w, i]: window w = e / 75, position i = e % 25.
  for (std::size_t e = 0; e < out.size(); ++e) ASSERT_EQ(out[e], sv[e] + mv[(e / 75) * 25 + e % 25]) << "element " << e;
}

TEST(SubviewConstantsData, AnImageThatLeavesAWeightRegionEmptyIsACompilerBugNotZeros) {
  // The check ddr_image() ends with: drop the mask's segment from a correct image and the
  // mask region (kind=weight) gets no byte, which must throw rather than run on zeros.
  WindowMaskAdd m;
  const auto c = compiler::compile(m.b.g, fp32_hw(64 * 1024), compiler::builtin_strategy("none"));
  std::vector<compiler::DdrSegment> image = compiler::ddr_image(c, {{"scores", random_values(300, 1)}});
  EXPECT_NO_THROW(compiler::check_every_weight_written(c, image));
  image.erase(std::remove_if(image.begin(), image.end(), [](const compiler::DdrSegment& s) { return s.what == "mask"; }),
              image.end());
  try {
    compiler::check_every_weight_written(c, image);
    FAIL() << "no error for an empty weight region";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("weight region 'mask' (400 B) gets no data"), std::string::npos) << e.what();
  }
}

TEST(SubviewConstantsData, AnInt8BatchedMatMulByAConstantIsRefusedNotRunOnZeros) {
  // x [2, 4, 8] @ B [2, 8, 3] (a constant): one GEMM per batch, each reading its slice
  // "B@OFFSET+BYTES" (batch 0: bytes 0 to 24 = 8 x 3 int8 codes). The int8 image writes
  // pre-tiled weights only for weights placed under their own name, so a run must refuse it,
  // naming the layer, the slice and the constant (it said "not a constant of the graph").
  compiler::testing::GraphBuilder b;
  b.input("x", {2, 4, 8});
  b.constant("B", {2, 8, 3}, -1.0f, 1.0f);
  b.add_tensor("y", {2, 4, 3});
  b.node("mm", "MatMul", {"x", "B"}, {"y"});
  b.output("y");
  const HwConfig hw = load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  const compiler::Strategy st = compiler::builtin_strategy("none");
  const compiler::Graph qg = compiler::quantize_graph(b.g, st, compiler::generate_calibration(b.g, 1, 2)).graph;
  const auto c = compiler::compile(qg, hw, st);
  ASSERT_TRUE(read_through_subviews(c, "B")) << "the case this test is for: B read per batch slice";
  std::string problems;
  for (const std::string& p : compiler::functional_problems(c)) problems += p + "\n";
  EXPECT_NE(problems.find("layer 'mm:b0' (MatMul) has no int8 lowering: weights 'B@0+24' are a slice of constant 'B'"),
            std::string::npos)
      << problems;
}

}  // namespace
