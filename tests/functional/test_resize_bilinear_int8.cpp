// The int8 bilinear Resize of the integer reference (quantised_resize.cpp: TensorFlow Lite's
// ResizeBilinearInteger with ONNX's coordinate modes), values worked out by hand. The NPU does
// not run it in int8 yet (the layer is costed only; docs/functional.md "int8 execution").
#include <gtest/gtest.h>

#include "npu/compiler/reference/reference_quantised.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "test_compile_graphs.hpp"

namespace {

using namespace npu;
using compiler::ElemType;
using compiler::QuantParams;
using compiler::testing::GraphBuilder;

// x [1,1,h,w] -> Resize (mode linear, `ctm`, sizes) -> y [1,1,oh,ow], both on (scale 0.5, zp 3).
GraphBuilder bilinear(std::int64_t h, std::int64_t w, std::int64_t oh, std::int64_t ow, const std::string& ctm) {
  GraphBuilder b("resize_int8");
  b.input("x", {1, 1, h, w});
  const QuantParams grid{{0.5f}, {3}, 1, ElemType::Int8};
  b.g.tensor("x").quant = grid;
  b.ints("sizes", {1, 1, oh, ow});
  b.add_tensor("y", {1, 1, oh, ow}).quant = grid;
  compiler::Node& n = b.node("resize", "Resize", {"x", "", "", "sizes"}, {"y"});
  n.attrs["mode"] = std::string("linear");
  n.attrs["coordinate_transformation_mode"] = ctm;
  b.output("y");
  return b;
}

// Real inputs whose codes on (0.5, 3) are `q`: x = (q - 3) 0.5.
std::vector<float> reals(const std::vector<int>& q) {
  std::vector<float> v;
  for (int c : q) v.push_back(float(c - 3) * 0.5f);
  return v;
}

TEST(ResizeBilinearInt8, HalfPixelTwoByTwoToFourByFourByHand) {
  // Codes [[-10, 0], [10, 20]]: the bilinear surface is f(y, x) = -10 + 10 x + 20 y. half_pixel
  // 2 -> 4: scale_10 = (2048 + 2) / 4 = 512, v(o) = 512 o - 256 = -256, 256, 768, 1280:
  // (lo, hi, f) = (0, 0, -256), (0, 1, 256), (0, 1, 768), (1, 1, 256), i.e. the coordinates
  // 0, 0.25, 0.75, 1 (the ends clamped). Rounding half away from zero of f at those points:
  //   y 0:    -10, -7.5 -> -8, -2.5 -> -3, 0
  //   y 0.25: -5, -2.5 -> -3, 2.5 -> 3, 5
  //   y 0.75: 5, 7.5 -> 8, 12.5 -> 13, 15
  //   y 1:    10, 12.5 -> 13, 17.5 -> 18, 20
  // e.g. (1, 1): s = -10 768^2 + 10 256 768 + 0 + 20 256^2 = -2,621,440 = -2.5 x 2^20 -> -3.
  const GraphBuilder b = bilinear(2, 2, 4, 4, "half_pixel");
  const auto r = compiler::run_quantised_reference(b.g, {{"x", reals({-10, 0, 10, 20})}});
  const std::vector<std::int8_t> want = {-10, -8, -3, 0, -5, -3, 3, 5, 5, 8, 13, 15, 10, 13, 18, 20};
  EXPECT_EQ(r.at("y").q, want);
}

TEST(ResizeBilinearInt8, AlignCornersAndAsymmetricByHand) {
  // align_corners 1 x 2 -> 1 x 3: columns scale_10 = (1024 + 1) / 2 = 512, v = 0, 512, 1024:
  // codes [-3, 4] -> -3, (-3 + 4) / 2 = 0.5 -> 1, 4 (rows: one in, one out, v = 0).
  const GraphBuilder a = bilinear(1, 2, 1, 3, "align_corners");
  EXPECT_EQ(compiler::run_quantised_reference(a.g, {{"x", reals({-3, 4})}}).at("y").q, (std::vector<std::int8_t>{-3, 1, 4}));
  // asymmetric 1 x 2 -> 1 x 4: scale_10 = 512, v = 0, 512, 1024, 1536 -> coordinates 0, 0.5,
  // 1, 1.5 (hi clamped to 1): -3, 0.5 -> 1, 4, 4.
  const GraphBuilder s = bilinear(1, 2, 1, 4, "asymmetric");
  EXPECT_EQ(compiler::run_quantised_reference(s.g, {{"x", reals({-3, 4})}}).at("y").q,
            (std::vector<std::int8_t>{-3, 1, 4, 4}));
}

TEST(ResizeBilinearInt8, AnotherModeOrGridIsAnErrorNamingIt) {
  GraphBuilder b = bilinear(2, 2, 4, 4, "tf_crop_and_resize");
  try {
    compiler::run_quantised_reference(b.g, {{"x", reals({0, 0, 0, 0})}});
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("'tf_crop_and_resize' has no int8 bilinear rule"), std::string::npos) << e.what();
  }
  GraphBuilder g = bilinear(2, 2, 4, 4, "half_pixel");
  g.g.tensor("y").quant = QuantParams{{0.25f}, {3}, 1, ElemType::Int8};
  try {
    compiler::run_quantised_reference(g.g, {{"x", reals({0, 0, 0, 0})}});
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("keeps the grid"), std::string::npos) << e.what();
  }
}

}  // namespace
