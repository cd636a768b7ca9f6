// npu llm's arithmetic on hand-made steps: sampled decode lengths, linear interpolation in
// context length, TPOT, tokens/s, bytes per token and over-compulsory (docs/llm.md).
#include <gtest/gtest.h>

#include "npu/sim/llm/llm_plan.hpp"
#include "npu/sim/llm/llm_report.hpp"

using npu::sim::LlmStep;

namespace {

LlmStep step(std::int64_t context, double latency_ms, double weights, double kv_read) {
  LlmStep s;
  s.context = context;
  s.latency_ms = latency_ms;
  s.bytes = {weights, kv_read, 100, 50};
  s.compulsory_bytes = weights + kv_read + 100;
  s.mac_utilisation = 0.1;
  s.ddr_bw_utilisation = 0.5;
  s.energy_mj = latency_ms;  // 1 mJ per ms, for the energy-per-token check
  return s;
}

}  // namespace

TEST(LlmFigures, SampledContextsSpreadFirstToLast) {
  // P = 100, G = 9, 5 samples: 101 + round(k x 8 / 4) = 101, 103, 105, 107, 109.
  EXPECT_EQ(npu::sim::sampled_contexts(100, 9, false, 5), (std::vector<std::int64_t>{101, 103, 105, 107, 109}));
  // G = 10: 101 + round(k x 9 / 4) = 101, 103 (2.25), 106 (4.5 rounds up), 108 (6.75), 110.
  EXPECT_EQ(npu::sim::sampled_contexts(100, 10, false, 5), (std::vector<std::int64_t>{101, 103, 106, 108, 110}));
  // --every-step, or G <= samples: every context P+1 .. P+G.
  EXPECT_EQ(npu::sim::sampled_contexts(100, 3, false, 5), (std::vector<std::int64_t>{101, 102, 103}));
  EXPECT_EQ(npu::sim::sampled_contexts(100, 7, true, 5).size(), 7u);
}

TEST(LlmFigures, InterpolatesLinearlyBetweenSimulatedLengths) {
  // Simulated at 11 (2 ms, KV read 1000 B) and 15 (4 ms, KV read 3000 B): context 13 is half way,
  // 3 ms and 2000 B; context 12 a quarter: 2.5 ms and 1500 B.
  const auto steps = npu::sim::fill_steps({step(11, 2.0, 8000, 1000), step(15, 4.0, 8000, 3000)}, 10, 5);
  ASSERT_EQ(steps.size(), 5u);
  EXPECT_TRUE(steps[0].simulated);
  EXPECT_FALSE(steps[2].simulated);
  EXPECT_DOUBLE_EQ(steps[2].latency_ms, 3.0);
  EXPECT_DOUBLE_EQ(steps[2].bytes.kv_read, 2000);
  EXPECT_DOUBLE_EQ(steps[1].latency_ms, 2.5);
  EXPECT_DOUBLE_EQ(steps[1].bytes.kv_read, 1500);
  EXPECT_DOUBLE_EQ(steps[1].bytes.weights, 8000);
  EXPECT_TRUE(steps[4].simulated);
}

TEST(LlmFigures, SummaryArithmetic) {
  // Steps 11..15 at 2, 2.5, 3, 3.5, 4 ms (sum 15 ms), batch 2: TPOT first 2, mean 15/5 = 3,
  // last 4; tokens/s = B x G / time = 2 x 5 / 0.015 s = 666.67.
  const auto steps = npu::sim::fill_steps({step(11, 2.0, 8000, 1000), step(15, 4.0, 8000, 3000)}, 10, 5);
  LlmStep prefill = step(10, 7.0, 8000, 0);
  const auto f = npu::sim::summarise_llm(prefill, steps, 2);
  EXPECT_DOUBLE_EQ(f.ttft_ms, 7.0);
  EXPECT_DOUBLE_EQ(f.tpot_first_ms, 2.0);
  EXPECT_DOUBLE_EQ(f.tpot_mean_ms, 3.0);
  EXPECT_DOUBLE_EQ(f.tpot_last_ms, 4.0);
  EXPECT_NEAR(f.tokens_per_s, 2.0 * 5 / 0.015, 1e-9);
  // Bytes per token: per step / B. Weights 8000 / 2 = 4000; KV read mean (1000..3000) = 2000 / 2
  // = 1000; KV write 100 / 2 = 50; activations 50 / 2 = 25.
  EXPECT_DOUBLE_EQ(f.bytes_per_token.weights, 4000);
  EXPECT_DOUBLE_EQ(f.bytes_per_token.kv_read, 1000);
  EXPECT_DOUBLE_EQ(f.bytes_per_token.kv_write, 50);
  EXPECT_DOUBLE_EQ(f.bytes_per_token.activations, 25);
  // Over compulsory: sum(total) / sum(compulsory) = (5 x 8150 + 10000) / (5 x 8100 + 10000) = 50750 / 50500.
  EXPECT_NEAR(f.over_compulsory, 50750.0 / 50500.0, 1e-12);
  // Energy: 15 mJ over B x G = 10 tokens = 1.5 mJ per token; utilisations time-weighted (constant here).
  ASSERT_TRUE(f.energy_per_token_mj.has_value());
  EXPECT_DOUBLE_EQ(*f.energy_per_token_mj, 1.5);
  EXPECT_DOUBLE_EQ(f.mac_utilisation, 0.1);
  EXPECT_DOUBLE_EQ(f.ddr_bw_utilisation, 0.5);
}

TEST(LlmFigures, DdrRooflineAndTheResourceThatHoldsDecodeBack) {
  // Two steps on a 100 GB/s DDR: weights 8e6 B + KV read 1e6 / 3e6 + KV write 100 B: roofline
  // (9000100 + 11000100) / 2 B / (100 GB/s) = 10000100 B / 1e11 B/s = 0.100001 ms per step.
  LlmStep a = step(11, 2.0, 8e6, 1e6), b = step(12, 4.0, 8e6, 3e6);
  for (LlmStep* s : {&a, &b}) s->peak_ddr_gbps = 100;
  a.busiest = "ddr_bandwidth", a.busiest_utilisation = 0.5;
  b.busiest = "mac_array", b.busiest_utilisation = 0.974;
  const auto f = npu::sim::summarise_llm(step(10, 7.0, 8e6, 0), {a, b}, 1);
  EXPECT_NEAR(f.roofline_ms, 0.100001, 1e-12);
  EXPECT_EQ(f.held_back_by, "mac_array 97 %");  // the last step's busiest resource
}
