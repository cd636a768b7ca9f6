// The SCALE-Sim topology reader's layer geometry (compiler/src/frontend/scalesim/topology.cpp);
// its bad inputs are tests/hw/bad_topology_cases_test.cpp, its fuzz finds
// tests/sim/test_fuzz_regressions.cpp.
#include <gtest/gtest.h>

#include <stdexcept>

#include "npu/compiler/frontend/scalesim/topology.hpp"

namespace npu::compiler {
namespace {

TEST(ScaleSimTopology, OfmapSizeIsAValidConvolutionRoundedUp) {
  // SCALE-Sim v2 Resnet18.csv Conv1: 224x224, 7x7, stride 2: ceil((224 - 7 + 2) / 2) = 110.
  EXPECT_EQ(scalesim_ofmap_size(224, 7, 2), 110);
  EXPECT_THROW(scalesim_ofmap_size(3, 5, 1), std::invalid_argument);  // filter larger than the input
}

TEST(ScaleSimTopology, ConvRowGivesMnk) {
  // Conv1 above with 3 channels and 64 filters: M = 110 x 110 = 12100, N = 64, K = 7 x 7 x 3 = 147.
  const auto layers = parse_scalesim_topology(
      "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\n"
      "Conv1, 224, 224, 7, 7, 3, 64, 2,\n",
      "r18.csv");
  ASSERT_EQ(layers.size(), 1u);
  EXPECT_EQ(layers[0].ofmap_px(), 12100);
  EXPECT_EQ(layers[0].filters, 64);
  EXPECT_EQ(layers[0].window(), 147);
  EXPECT_EQ(layers[0].line, 2);
}

}  // namespace
}  // namespace npu::compiler
