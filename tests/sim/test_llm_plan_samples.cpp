// `--samples` (docs/llm.md "What is simulated"): G <= samples simulates every step, so one
// sample is enough for one generated token; more steps than samples are interpolated, which
// needs two lengths, so --samples 1 is refused there (naming the value and the fix).
#include <gtest/gtest.h>

#include "npu/base/config_error.hpp"
#include "npu/sim/llm/llm_plan.hpp"
#include "npu/sim/llm/model_source.hpp"

namespace {

npu::sim::LlmOptions samples_options(std::int64_t generate, int samples) {
  npu::sim::LlmOptions opt;
  opt.model = "gpt2";
  opt.hws = {std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml"};
  opt.strategies = {"none"};
  opt.prompt = 32;
  opt.generate = generate;
  opt.prompt_given = opt.generate_given = true;
  opt.samples = samples;
  opt.out_dir = "unused";
  return opt;
}

TEST(LlmPlanSamples, OneSampleSimulatesTheOneStepOfOneGeneratedToken) {
  const auto source = npu::sim::open_model_source("gpt2");
  const auto plan = npu::sim::plan_llm(samples_options(1, 1), *source);
  EXPECT_EQ(plan.decode_contexts, std::vector<std::int64_t>{33});  // P + 1
  EXPECT_EQ(plan.decode_method, "every step simulated");
}

TEST(LlmPlanSamples, OneSampleForMoreStepsIsRefused) {
  const auto source = npu::sim::open_model_source("gpt2");
  try {
    npu::sim::plan_llm(samples_options(4, 1), *source);
    ADD_FAILURE() << "--samples 1 with 4 steps to interpolate was accepted";
  } catch (const npu::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("--samples 1: error: interpolation needs at least 2"), std::string::npos)
        << e.what();
  }
}

}  // namespace
