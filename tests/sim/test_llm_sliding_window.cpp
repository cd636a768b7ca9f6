// A zoo LLM's sliding window is recorded, not modelled (compiler-frontend.md): `npu llm` says so
// in its decode method (printed under the table and written to llm.csv / llm.json / llm.md)
// when the run's context passes the window, and says nothing when it does not. mistral-7b's
// published window is 4096 tokens (Mistral 7B, arXiv:2310.06825, table 1); llama-2-7b has none.
#include <gtest/gtest.h>

#include "npu/sim/llm/llm_plan.hpp"
#include "npu/sim/llm/model_source.hpp"

namespace {

npu::sim::LlmPlan plan_for(const std::string& model, std::int64_t prompt, std::int64_t generate) {
  npu::sim::LlmOptions opt;
  opt.model = model;
  opt.hws = {std::string(NPU_SOURCE_DIR) + "/configs/hbm2-npu.yaml"};
  opt.strategies = {"none"};
  opt.prompt = prompt;
  opt.generate = generate;
  opt.prompt_given = opt.generate_given = true;
  opt.out_dir = "unused";
  const auto source = npu::sim::open_model_source(model);
  EXPECT_EQ(source->shape().sliding_window, model == "mistral-7b" ? 4096 : 0);
  return npu::sim::plan_llm(opt, *source);
}

TEST(LlmSlidingWindow, ADecodePastTheWindowIsNamedAsNotModelled) {
  const auto past = plan_for("mistral-7b", 4090, 10);  // contexts 4091 .. 4100: past 4096
  EXPECT_NE(past.decode_method.find("not modelled: the model's sliding window of 4096 tokens"), std::string::npos)
      << past.decode_method;
  const auto within = plan_for("mistral-7b", 4000, 96);  // the last context is 4096: inside the window
  EXPECT_EQ(within.decode_method.find("sliding window"), std::string::npos) << within.decode_method;
  const auto none = plan_for("llama-2-7b", 4000, 96);  // no window
  EXPECT_EQ(none.decode_method.find("sliding window"), std::string::npos) << none.decode_method;
}

}  // namespace
