// stem_of (sim/experiment/experiment.hpp): the name of a model, config or strategy argument in
// run folders and summaries. A file loses its own suffix; a zoo name keeps its dots (a newcomer's
// probe: "llama-3.2-1b:prefill=3" was named "llama-3", and two prompt lengths then collided).
#include <gtest/gtest.h>

#include "npu/sim/experiment/experiment.hpp"

namespace {

using npu::sim::stem_of;

TEST(RunNames, FilesLoseTheirSuffixAndZooNamesKeepTheirDots) {
  EXPECT_EQ(stem_of("configs/edge-npu-ddr4.yaml"), "edge-npu-ddr4");
  EXPECT_EQ(stem_of("../shared/models/resnet50_bn.onnx"), "resnet50_bn");
  EXPECT_EQ(stem_of("my.strategy.yml"), "my.strategy");
  EXPECT_EQ(stem_of("resnet50"), "resnet50");
  EXPECT_EQ(stem_of("llama-3-8b:prefill=3"), "llama-3-8b_prefill_3");
  EXPECT_EQ(stem_of("llama-3.2-1b:prefill=3"), "llama-3.2-1b_prefill_3");
  EXPECT_NE(stem_of("llama-3.2-1b:prefill=3"), stem_of("llama-3.2-1b:prefill=4"));
}

}  // namespace
