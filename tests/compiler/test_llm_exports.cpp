// The shared LLM exports (../shared/models/llm, README there: GPT-2 and Llama architectures,
// prefill and decode, torch's reference pair beside each) compile with every node on the NPU
// (the token-embedding Gather as gather LOADs) and, run with data on an fp32 config, equal
// torch's outputs under every strategy (issue 26, "With data"). One test per model x phase.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/frontend/model_loader.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "fp32_config.hpp"
#include "shared_data.hpp"
#include "tool_runner.hpp"

namespace npu::compiler {
namespace {

const std::string kLlm = npu::test::shared_path("models/llm/");

/// `npu verify` of NAME (e.g. "gpt2_tiny-decode") with its reference pair on hbm2-npu in fp32:
/// every strategy's row passes (relative error <= 1e-4 against the reference interpreter) and
/// every output is within 1e-4 of torch's (the pair's output_K.pb, in graph-output order).
void expect_equal_to_torch(const std::string& name) {
  const std::string model = kLlm + name + ".onnx", data = kLlm + name + "_data/test_data_set_0/";
  const std::string out = npu::test::fresh_dir("llm_verify_" + name);
  std::vector<std::string> args{"verify", model, "--hw", npu::test::fp32_config(out, "hbm2-npu"), "--out", out, "-j", "2",
                                "--input", "input_ids=" + data + "input_0.pb"};
  const bool decode = name.find("decode") != std::string::npos;
  const char* past[] = {"past.0.key", "past.0.value", "past.1.key", "past.1.value"};
  for (int k = 0; decode && k < 4; ++k) args.push_back(std::string(past[k]) + "=" + data + "input_" + std::to_string(k + 1) + ".pb");
  args.push_back("--expected");
  const char* outs[] = {"logits", "present.0.key", "present.0.value", "present.1.key", "present.1.value"};
  for (int k = 0; k < 5; ++k) args.push_back(std::string(outs[k]) + "=" + data + "output_" + std::to_string(k) + ".pb");
  const npu::test::ToolResult r = npu::test::run_npu(args);
  ASSERT_EQ(r.status, 0) << r.output;
  const nlohmann::json v = nlohmann::json::parse(npu::test::read_file(out + "/verify.json"));
  ASSERT_EQ(v.at("rows").size(), builtin_strategy_names().size());
  for (const auto& row : v.at("rows")) {
    EXPECT_TRUE(row.at("pass").get<bool>()) << name << " " << row.dump();
    ASSERT_EQ(row.at("sim_vs_expected").size(), 5u) << row.dump();
    for (const auto& e : row.at("sim_vs_expected")) EXPECT_LE(e.at("rel_error").get<double>(), 1e-4) << e.dump();
  }
}

/// Compiles NAME on hbm2-npu (int8, timing): no host node, and one gather layer for the token
/// embedding. (Every strategy on fp32 is covered by the verify: a run with data refuses a host
/// layer, ddr_image.cpp functional_problems.)
void expect_all_on_npu(const std::string& name) {
  const Graph g = load_model(kLlm + name + ".onnx");
  const HwConfig hw = load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/hbm2-npu.yaml");
  for (const std::string s : {"conv-bn-act"}) {
    const CompileResult r = compile(g, hw, builtin_strategy(s));
    EXPECT_TRUE(r.lowered.host_nodes.empty()) << name << " " << s << ": " << r.lowered.host_nodes.front().name;
    int gathers = 0;
    for (const LayerSpec& L : r.lowered.layers) gathers += L.kind == LayerKind::Gather;
    EXPECT_EQ(gathers, 1) << name << " " << s;
  }
}

TEST(LlmExports, Gpt2DecodeRunsOnTheNpuAndEqualsTorch) {
  NPU_REQUIRE_SHARED_OR_SKIP(kLlm + "gpt2_tiny-decode.onnx");
  expect_all_on_npu("gpt2_tiny-decode");
  expect_equal_to_torch("gpt2_tiny-decode");
}

TEST(LlmExports, Gpt2PrefillRunsOnTheNpuAndEqualsTorch) {
  NPU_REQUIRE_SHARED_OR_SKIP(kLlm + "gpt2_tiny-prefill.onnx");
  expect_all_on_npu("gpt2_tiny-prefill");
  expect_equal_to_torch("gpt2_tiny-prefill");
}

TEST(LlmExports, LlamaDecodeRunsOnTheNpuAndEqualsTorch) {
  NPU_REQUIRE_SHARED_OR_SKIP(kLlm + "llama_tiny-decode.onnx");
  expect_all_on_npu("llama_tiny-decode");
  expect_equal_to_torch("llama_tiny-decode");
}

TEST(LlmExports, LlamaPrefillRunsOnTheNpuAndEqualsTorch) {
  NPU_REQUIRE_SHARED_OR_SKIP(kLlm + "llama_tiny-prefill.onnx");
  expect_all_on_npu("llama_tiny-prefill");
  expect_equal_to_torch("llama_tiny-prefill");
}

TEST(LlmExports, TheEmbeddingGatherReadsOnlyTheSelectedRowsAndTheIndices) {
  // gpt2_tiny-prefill: Gather(wte [2048, 256], input_ids [1, 128]) on hbm2-npu (int8, 1 B an
  // element). Compulsory read = B*S*D*elem + B*S*4 (int32 indices) = 128*256*1 + 128*4 =
  // 33,280 B (the whole table would be 2048*256 = 524,288 B); written B*S*D*elem = 32,768 B.
  // The LOADs: 128 index bytes x 4 + 128 rows x 256 B = the same 33,280 B planned.
  const std::string model = kLlm + "gpt2_tiny-prefill.onnx";
  NPU_REQUIRE_SHARED_OR_SKIP(model);
  const CompileResult r = compile(load_model(model), load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/hbm2-npu.yaml"),
                                  builtin_strategy("conv-bn-act"));
  bool found = false;
  for (const LayerReport& L : r.report.layers) {
    if (L.kind != "gather") continue;
    found = true;
    EXPECT_EQ(L.compulsory_read_bytes, 33280u);
    EXPECT_EQ(L.compulsory_write_bytes, 32768u);
    EXPECT_EQ(L.planned_read_bytes, 33280u);
    EXPECT_EQ(L.planned_write_bytes, 32768u);
  }
  EXPECT_TRUE(found) << "no gather layer";
}

TEST(LlmExports, GeneratedTokenIdsAreIntegersInTheTableAndSaySo) {
  // Without --input-data the token ids are seeded uniform in [0, 2048) (the table's rows),
  // never floats; the output says so.
  const std::string model = kLlm + "gpt2_tiny-decode.onnx";
  NPU_REQUIRE_SHARED_OR_SKIP(model);
  const std::string out = npu::test::fresh_dir("llm_seeded");
  const npu::test::ToolResult r = npu::test::run_npu(
      {"simulate", "--model", model, "--hw", npu::test::fp32_config(out, "hbm2-npu"), "--with-data", "--out", out + "/run"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("graph input 'input_ids': seeded integers uniform in [0, 2048)"), std::string::npos) << r.output;
}

TEST(LlmExports, AFloatFileForTokenIdsIsRefusedWithTheFix) {
  // input_ids is int64: a float file (past.0.key's values) is refused, naming the input and
  // the file types it takes.
  const std::string model = kLlm + "gpt2_tiny-decode.onnx", data = kLlm + "gpt2_tiny-decode_data/test_data_set_0/";
  NPU_REQUIRE_SHARED_OR_SKIP(model);
  const std::string out = npu::test::fresh_dir("llm_float_ids");
  const npu::test::ToolResult r =
      npu::test::run_npu({"simulate", "--model", model, "--hw", npu::test::fp32_config(out, "hbm2-npu"), "--with-data",
                          "--input-data", "input_ids=" + data + "input_1.pb", "--out", out + "/run"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("graph input 'input_ids' holds integers (int64/int32); the file holds floats"),
            std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace npu::compiler
