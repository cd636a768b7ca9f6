// int8 LayerNormalization over the channel axis of a convolution's output, reached by a
// Transpose to NHWC (ConvNeXt's LayerNorm2d: Conv -> Transpose -> LayerNormalization over C ->
// Transpose back). convnext_tiny's int8 verify stopped in the data path ("rounding_divide_by_pot:
// exponent 1276441623 not in [0, 31]"): see the test's comment for the cause.
#include <gtest/gtest.h>

#include "int8_test_util.hpp"
#include "test_compile_graphs.hpp"

using namespace npu;

namespace {

// x [1, 3, 8, 8] -> Conv 4 -> 16, k 2, stride 2 (ConvNeXt's patchify stem, small) -> Transpose
// [0, 2, 3, 1] -> LayerNormalization over the 16 channels (gamma, beta) -> Transpose [0, 3, 1, 2]
// -> [1, 16, 4, 4].
compiler::Graph conv_layernorm_nhwc() {
  compiler::testing::GraphBuilder b("conv_ln_nhwc");
  b.input("x", {1, 3, 8, 8});
  const std::string c = b.conv("stem", "x", 16, 2, 2, 0, 1, true);
  b.add_tensor("nhwc", {1, 4, 4, 16});
  b.node("to_nhwc", "Transpose", {c}, {"nhwc"}).attrs["perm"] = std::vector<std::int64_t>{0, 2, 3, 1};
  const std::string gamma = b.constant("gamma", {16}, 0.5f, 1.5f), beta = b.constant("beta", {16}, -0.3f, 0.3f);
  b.add_tensor("ln", {1, 4, 4, 16});
  compiler::Node& ln = b.node("norm", "LayerNormalization", {"nhwc", gamma, beta}, {"ln"});
  ln.attrs["axis"] = std::int64_t(-1);
  ln.attrs["epsilon"] = 1e-6f;
  b.add_tensor("y", {1, 16, 4, 4});
  b.node("to_nchw", "Transpose", {"ln"}, {"y"}).attrs["perm"] = std::vector<std::int64_t>{0, 3, 1, 2};
  b.output("y");
  return b.g;
}

}  // namespace

TEST(Int8LayerNormNhwc, ConvTransposeLayerNormTransposeIsBitExactUnderEveryStrategy) {
  const HwConfig hw = load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  npu::test::expect_int8_bit_exact_under_every_strategy(conv_layernorm_nhwc(), hw, 3, 4);
}
