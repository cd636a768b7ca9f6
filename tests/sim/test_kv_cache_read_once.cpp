// A decode step reads its KV cache once under every strategy, fused attention or not (a
// new-user finding: under `none` GPT-2 at context 302 read it twice, because the per-head
// P x V GEMMs took 32-column tiles of V, each 64-byte row cut in two bursts' halves, and the K
// cache's Transpose took 54- and 10-column tiles; conv_burst_cost's b_row_major and
// plan_layout_tiles' burst rule).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tool_runner.hpp"

namespace {

double kv_read_bytes(const std::string& strategy) {
  const std::string out = npu::test::fresh_dir("kv-read-once-" + strategy);
  const auto r = npu::test::run_npu({"simulate", "--model", "gpt2:decode=302", "--hw",
                                     std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml", "--strategy",
                                     strategy, "--out", out});
  EXPECT_EQ(r.status, 0) << r.output;
  return npu::test::read_json(out + "/run.json").at("ddr_by_kind").at("kv_cache").at("read_bytes").get<double>();
}

TEST(KvCacheReadOnce, Gpt2DecodeReadsTheCacheOnceUnderEveryStrategy) {
  // GPT-2: 12 layers, K and V of d_model = 768 int8 values per position (the edge preset's
  // dtype), 302 past positions: 302 x 12 x 2 x 768 = 5,566,464 bytes.
  for (const char* s : {"none", "conv-bn-act", "transformer"}) EXPECT_DOUBLE_EQ(kv_read_bytes(s), 5566464.0) << s;
}

}  // namespace
