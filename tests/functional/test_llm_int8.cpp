// The shared LLM exports (../shared/models/llm) in int8 with data (issue 26, "Precisions"):
// `npu verify` on configs/hbm2-npu.yaml (mac_array.dtype int8) quantises each model after
// training (PTQ), calibrated on its reference pair's inputs (--calib NAME_data: the token ids
// as they are, the past KV caches of a decode export calibrated as float activations), runs the
// reference pair's input, and checks every strategy's int8 program bit for bit against the
// integer reference interpreter. The SQNR of the simulated output (dequantised) against the
// fp32 reference is printed and must stay above kSqnrFloorDb.
#include <gtest/gtest.h>

#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "npu/compiler/transforms/strategy.hpp"
#include "shared_data.hpp"
#include "tool_runner.hpp"

namespace {

const std::string kLlm = npu::test::shared_path("models/llm/");

// The floor: random-weight tiny decoders, per-tensor int8 activations (measured 2026-12-05,
// docs/results.md "LLM inference"): every model and phase clears it with margin; a broken rule
// (a wrong grid, a lost zero point) drops the logits' SQNR to a few dB.
constexpr double kSqnrFloorDb = 10.0;

void expect_int8_bit_exact(const std::string& name) {  // every built-in strategy (verify's default)
  const std::string model = kLlm + name + ".onnx", pair = kLlm + name + "_data", data = pair + "/test_data_set_0/";
  const std::string out = npu::test::fresh_dir("llm_int8_" + name);
  std::vector<std::string> args{"verify", model, "--hw", "configs/hbm2-npu.yaml", "--calib", pair, "--out", out, "-j",
                                "2", "--input", "input_ids=" + data + "input_0.pb"};
  const char* past[] = {"past.0.key", "past.0.value", "past.1.key", "past.1.value"};
  const bool decode = name.find("decode") != std::string::npos;
  for (int k = 0; decode && k < 4; ++k) args.push_back(std::string(past[k]) + "=" + data + "input_" + std::to_string(k + 1) + ".pb");
  const npu::test::ToolResult r = npu::test::run_npu(args);
  ASSERT_EQ(r.status, 0) << r.output;
  const nlohmann::json v = nlohmann::json::parse(npu::test::read_file(out + "/verify.json"));
  ASSERT_EQ(v.at("dtype").get<std::string>(), "int8");
  ASSERT_FALSE(v.at("rows").empty());
  for (const auto& row : v.at("rows")) {
    const std::string st = row.at("strategy").get<std::string>();
    EXPECT_EQ(row.at("bit_exact").get<std::string>(), "bit-exact") << name << " " << st;
    for (const auto& e : row.at("sim_vs_reference")) {
      const double db = e.at("sqnr_db").is_number() ? e.at("sqnr_db").get<double>() : 1e9;
      std::cout << "[ int8 SQNR ] " << name << " " << st << " " << e.at("output").get<std::string>() << " " << db
                << " dB\n";
      EXPECT_GE(db, kSqnrFloorDb) << name << " " << st << " " << e.dump();
    }
    if (decode) continue;
    // A prefill's causal mask saturates the masked scores at code -128. The fake-quant int8
    // model (quant_vs_reference: float Softmax of the dequantised codes) gives those keys the
    // weight exp(s (-128 - max)); the NPU's softmax (mask=-128, docs/functional.md) gives them 0,
    // as the fp32 model's -inf does. So the simulated logits must be clearly closer to fp32 than
    // the fake-quant model's: 3 dB or more (the first query rows carry up to 127 masked keys).
    const auto sqnr_of = [&](const char* key) {
      for (const auto& e : row.at(key))
        if (e.at("output") == "logits" && e.at("sqnr_db").is_number()) return e.at("sqnr_db").get<double>();
      return 0.0;
    };
    EXPECT_GE(sqnr_of("sim_vs_reference"), sqnr_of("quant_vs_reference") + 3.0) << name << " " << st;
  }
}

}  // namespace

TEST(LlmInt8, Gpt2PrefillIsBitExactWithTheIntegerReference) {
  NPU_REQUIRE_SHARED_OR_SKIP(kLlm + "gpt2_tiny-prefill.onnx");
  expect_int8_bit_exact("gpt2_tiny-prefill");
}

TEST(LlmInt8, Gpt2DecodeIsBitExactWithTheIntegerReference) {
  NPU_REQUIRE_SHARED_OR_SKIP(kLlm + "gpt2_tiny-decode.onnx");
  expect_int8_bit_exact("gpt2_tiny-decode");
}

TEST(LlmInt8, LlamaPrefillIsBitExactWithTheIntegerReference) {
  NPU_REQUIRE_SHARED_OR_SKIP(kLlm + "llama_tiny-prefill.onnx");
  expect_int8_bit_exact("llama_tiny-prefill");
}

TEST(LlmInt8, LlamaDecodeIsBitExactWithTheIntegerReference) {
  NPU_REQUIRE_SHARED_OR_SKIP(kLlm + "llama_tiny-decode.onnx");
  expect_int8_bit_exact("llama_tiny-decode");
}
