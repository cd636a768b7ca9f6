// `npu llm` on a config whose KV cache is of another width than the array's (mac_array.
// kv_cache_dtype, which lowering cannot build yet: docs/config.md "Precisions") is refused
// before any simulation; it was refused by the first decode step, after every prefill ran.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tool_runner.hpp"

namespace {

TEST(LlmKvWidthTool, Fp16KvCacheOnAnInt8ArrayIsRefusedBeforeAnyRun) {
  // Edge preset: dtype int8 (1 B); kv_cache_dtype fp16 is 2 B an element.
  const std::string dir = npu::test::fresh_dir("llm-kv-fp16");
  std::string yaml = npu::test::read_file(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  const std::size_t at = yaml.find("  dtype: int8");
  ASSERT_NE(at, std::string::npos);
  yaml.insert(at, "  kv_cache_dtype: fp16\n");
  const std::string cfg = dir + "/kv-fp16.yaml";
  std::ofstream(cfg) << yaml;
  const auto r = npu::test::run_npu({"llm", "gpt2", "--hw", cfg, "--prompt", "16", "--generate", "4", "--strategies",
                                     "none", "--out", dir + "/o"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find(cfg + ": error: mac_array.kv_cache_dtype gives the KV cache 2 B an element but the array's "
                                "dtype 1 B; a KV cache of another width than the array's is not modelled yet (every "
                                "decode step appends to it); remove the key or set it to 'same'"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir + "/o/runs")) << "a simulation started before the refusal";
}

}  // namespace
