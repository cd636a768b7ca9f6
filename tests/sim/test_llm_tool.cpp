// `npu llm` end to end on the shared tiny GPT-2 pair (../shared/models/llm), its report checked
// against the children's run.json by hand, and its bad-input errors (issue 26, "Bad inputs").
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <vector>

#include "shared_data.hpp"
#include "tool_runner.hpp"

using npu::test::run_npu;

namespace {

std::string pair(const std::string& prefill, const std::string& decode) {
  const std::string m = npu::test::shared_path("models") + "/llm/";
  return m + prefill + "-prefill.onnx," + m + decode + "-decode.onnx";
}

}  // namespace

TEST(LlmTool, TinyGpt2PairReportsFiguresFromTheRuns) {
  NPU_REQUIRE_SHARED_OR_SKIP(npu::test::shared_path("models") + "/llm");
  const std::string out = npu::test::fresh_dir("llm-e2e");
  const auto r = run_npu({"llm", pair("gpt2_tiny", "gpt2_tiny"), "--hw", "configs/edge-npu-ddr4.yaml",
                          "--strategies", "none", "--generate", "1", "--out", out});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("one decode length only"), std::string::npos) << r.output;
  {  // The text table's columns are sized to their cells (issue 27 item 5): every '|' of the
     // heading line sits where the row's does.
    const std::size_t strategy = r.output.find("|  strategy");
    ASSERT_NE(strategy, std::string::npos) << r.output;
    const std::size_t head = r.output.rfind('\n', strategy) + 1;
    const std::size_t head_end = r.output.find('\n', head);
    const std::string heading = r.output.substr(head, head_end - head);
    const std::string row = r.output.substr(head_end + 1, r.output.find('\n', head_end + 1) - head_end - 1);
    std::vector<std::size_t> bars_heading, bars_row;
    for (std::size_t i = 0; i < heading.size(); ++i) if (heading[i] == '|') bars_heading.push_back(i);
    for (std::size_t i = 0; i < row.size(); ++i) if (row[i] == '|') bars_row.push_back(i);
    EXPECT_EQ(bars_heading.size(), 9u) << heading;
    EXPECT_EQ(bars_heading, bars_row) << heading << "\n" << row;
  }
  const auto llm = npu::test::read_json(out + "/llm.json").at(0);
  const auto pre = npu::test::read_json(out + "/runs/gpt2_tiny__edge-npu-ddr4__none__prefill128/run.json");
  const auto dec = npu::test::read_json(out + "/runs/gpt2_tiny__edge-npu-ddr4__none__decode128/run.json");
  EXPECT_EQ(llm.at("prompt"), 127);  // the decode export's past length
  EXPECT_DOUBLE_EQ(llm.at("ttft_ms").get<double>(), pre.at("latency_ms").get<double>());
  const double step_ms = dec.at("latency_ms").get<double>();
  EXPECT_DOUBLE_EQ(llm.at("tpot_ms").at("mean").get<double>(), step_ms);
  EXPECT_NEAR(llm.at("tokens_per_s").get<double>(), 1 * 1 / (step_ms / 1e3), 1e-6);  // B x G / time
  // KV: reads and writes of the past.* and present.* tensors; the rest of the split adds up to the run's DDR bytes.
  double kv_read = 0, kv_write = 0;
  for (const auto& [name, t] : dec.at("ddr_by_tensor").items())
    if (name.rfind("past", 0) == 0 || name.rfind("present", 0) == 0) {
      kv_read += t.at("read_bytes").get<double>();
      kv_write += t.at("write_bytes").get<double>();
    }
  const auto& b = llm.at("ddr_bytes_per_token");
  EXPECT_DOUBLE_EQ(b.at("kv_read").get<double>(), kv_read);
  EXPECT_DOUBLE_EQ(b.at("kv_write").get<double>(), kv_write);
  const double total = dec.at("ddr_read_bytes").get<double>() + dec.at("ddr_write_bytes").get<double>();
  EXPECT_DOUBLE_EQ(b.at("total").get<double>(), total);
  // Compulsory: the append is in place (a kv_cache tensor, docs/compiler.md "KV cache"), which the
  // run counts once: 4 tensors x [1, 4 heads, 128, 64] x 1 byte int8 = 131072 B = the past rows read
  // once (4 x 4 x 127 x 64 = 130048) + the new rows written once (4 x 4 x 64 = 1024): the LLM's rule
  // already, so the run's figure stands.
  EXPECT_DOUBLE_EQ(dec.at("ddr_by_kind").at("kv_cache").at("write_bytes").get<double>(), 1024);
  const double compulsory = dec.at("compulsory_bytes").get<double>();
  EXPECT_NEAR(llm.at("over_compulsory").get<double>(), total / compulsory, 1e-9);
  for (const char* f : {"/summary.csv", "/summary.md", "/llm.csv", "/llm.md", "/steps/edge-npu-ddr4__none.csv"})
    EXPECT_TRUE(std::ifstream(out + f).good()) << f;
  // Column headers as docs/llm.md lists them.
  auto header = [](const std::string& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
  };
  EXPECT_EQ(header(out + "/llm.csv"),
            "model,hw,strategy,prompt,generate,batch,ttft_ms,tpot_first_ms,tpot_mean_ms,tpot_last_ms,tokens_per_s,"
            "weight_bytes_per_token,kv_read_bytes_per_token,kv_write_bytes_per_token,activation_bytes_per_token,"
            "ddr_bytes_per_token,over_compulsory,mac_utilisation,ddr_bw_utilisation,energy_per_token_mj,ddr_roofline_ms,"
            "tpot_over_roofline,held_back_by,decode_method,status,error");
  EXPECT_EQ(header(out + "/steps/edge-npu-ddr4__none.csv"),
            "context,simulated,latency_ms,weight_bytes,kv_read_bytes,kv_write_bytes,activation_bytes,compulsory_bytes");
  // The plots, drawn at the end when /usr/bin/python3 has matplotlib; else the command is printed.
  if (npu::test::run_shell("/usr/bin/python3 -c 'import matplotlib'").status == 0) {
    EXPECT_TRUE(std::ifstream(out + "/plots/latency_per_token.png").good()) << r.output;
    EXPECT_TRUE(std::ifstream(out + "/plots/bytes_per_token.png").good()) << r.output;
  } else {
    EXPECT_NE(r.output.find("scripts/plot_llm.py"), std::string::npos) << r.output;
  }
}

TEST(LlmTool, FailedPairKeepsItsRowWithTheReason) {
  // A config whose SRAM (4 KiB) cannot hold one minimal tile of the tiny GPT-2's projection
  // (it needs about 7 KiB): its pair fails, the edge preset's pair still runs. The failed pair
  // must not vanish from llm.*: a row with status "failed", the run and the compiler's reason,
  // and the closing message names it; exit 1 as `npu experiment` does for a failed run.
  NPU_REQUIRE_SHARED_OR_SKIP(npu::test::shared_path("models") + "/llm");
  const std::string out = npu::test::fresh_dir("llm-failed-pair");
  const std::string cfg = out + "/tiny-sram.yaml";
  {
    std::string text = npu::test::read_file(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
    const auto p = text.find("capacity: 1 MiB");
    ASSERT_NE(p, std::string::npos) << "edge preset has no 'capacity: 1 MiB'";
    text.replace(p, std::string("capacity: 1 MiB").size(), "capacity: 4 KiB");
    std::ofstream(cfg) << text;
  }
  const auto r = run_npu({"llm", pair("gpt2_tiny", "gpt2_tiny"), "--hw", "configs/edge-npu-ddr4.yaml", "--hw", cfg,
                          "--strategies", "none", "--generate", "1", "--out", out + "/res"});
  EXPECT_EQ(r.status, 1) << r.output;
  const auto llm = npu::test::read_json(out + "/res/llm.json");
  ASSERT_EQ(llm.size(), 2u) << llm.dump(2);
  EXPECT_EQ(llm.at(0).at("status"), "ok");
  EXPECT_EQ(llm.at(1).at("hw"), "tiny-sram");
  EXPECT_EQ(llm.at(1).at("status"), "failed");
  const std::string error = llm.at(1).at("error").get<std::string>();
  EXPECT_NE(error.find("gpt2_tiny__tiny-sram__none__prefill128: "), std::string::npos) << error;
  EXPECT_NE(error.find("cannot fit even one minimal tile in SRAM"), std::string::npos) << error;
  const std::string csv = npu::test::read_file(out + "/res/llm.csv");
  EXPECT_NE(csv.find("gpt2_tiny,tiny-sram,none,127,1,1,,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",failed,\"gpt2_tiny__tiny-sram__none__prefill128: "), std::string::npos) << csv;
  EXPECT_NE(npu::test::read_file(out + "/res/llm.md").find("| tiny-sram | none | FAILED: "), std::string::npos);
  EXPECT_TRUE(std::regex_search(r.output, std::regex("tiny-sram +\\| +none +\\| +FAILED: gpt2_tiny__tiny-sram")))
      << r.output;
  EXPECT_NE(r.output.find("1 hw/strategy pair(s) had a failed run"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("  tiny-sram none (gpt2_tiny__tiny-sram__none__prefill128: "), std::string::npos) << r.output;
}

TEST(LlmTool, ARerunIntoTheFolderReusesFinishedSimulationsOfTheSameKey) {
  // The tiny pair has one decode length: 2 simulations per strategy. A second run adding a
  // strategy simulates only its 2 and reads the first strategy's back (the same figures); a
  // config edited in place (another key) is simulated again.
  NPU_REQUIRE_SHARED_OR_SKIP(npu::test::shared_path("models") + "/llm");
  const std::string out = npu::test::fresh_dir("llm-rerun");
  const std::string cfg = out + "/hw.yaml";
  const std::string edge = npu::test::read_file(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  std::ofstream(cfg) << edge;
  const std::vector<std::string> args{"llm", pair("gpt2_tiny", "gpt2_tiny"), "--hw", cfg, "--generate", "1",
                                      "--out", out + "/res", "--strategies"};
  auto with = [&](const std::string& strategies) {
    std::vector<std::string> a = args;
    a.push_back(strategies);
    return run_npu(a);
  };
  auto r = with("none");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output.find("reused"), std::string::npos) << r.output;
  const auto first = npu::test::read_json(out + "/res/llm.json").at(0);
  r = with("none,transformer");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("reused 2 of 4 simulations finished earlier in this folder"), std::string::npos) << r.output;
  const auto second = npu::test::read_json(out + "/res/llm.json");
  ASSERT_EQ(second.size(), 2u);
  EXPECT_EQ(second.at(0), first);
  {
    std::string text = edge;
    const auto p = text.find("clock_mhz: ");
    ASSERT_NE(p, std::string::npos);
    text.insert(p, "clock_mhz: 500\n  # was: ");  // the same path, another config
    std::ofstream(cfg) << text;
  }
  r = with("none");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output.find("reused"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("note: 2 finished simulation(s) in this folder were made under another key"),
            std::string::npos)
      << r.output;  // why the finished runs were not reused
  EXPECT_GT(npu::test::read_json(out + "/res/llm.json").at(0).at("ttft_ms").get<double>(),
            first.at("ttft_ms").get<double>());  // half the clock: a slower first token
}

TEST(LlmTool, MaxInstructionsReachesEveryRunAndAllFailedPairsWriteNoSteps) {
  // --max-instructions 50 (the tiny GPT-2's prefill has thousands of instructions): every run
  // fails with the compiler's limit message naming 50, so no pair has steps/*.csv: the closing
  // lines must not claim them and must not call the plot script on nothing.
  NPU_REQUIRE_SHARED_OR_SKIP(npu::test::shared_path("models") + "/llm");
  const std::string out = npu::test::fresh_dir("llm-max-instructions");
  const auto r = run_npu({"llm", pair("gpt2_tiny", "gpt2_tiny"), "--hw", "configs/edge-npu-ddr4.yaml", "--strategies",
                          "none", "--generate", "1", "--max-instructions", "50", "--out", out + "/res"});
  EXPECT_EQ(r.status, 1) << r.output;
  const auto llm = npu::test::read_json(out + "/res/llm.json");
  ASSERT_EQ(llm.size(), 1u) << llm.dump(2);
  EXPECT_EQ(llm.at(0).at("status"), "failed");
  EXPECT_NE(llm.at(0).at("error").get<std::string>().find("the limit is 50 (--max-instructions"), std::string::npos)
      << llm.dump(2);
  EXPECT_EQ(r.output.find("steps/*.csv"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("plots: none (no hw/strategy pair has a successful run to plot)"), std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("plot_llm"), std::string::npos) << r.output;
}

struct LlmBadInput {
  const char* name;
  std::vector<std::string> args;  ///< after `npu llm`
  const char* expect;             ///< regex the message must match (value and fix)
};

void PrintTo(const LlmBadInput& c, std::ostream* os) { *os << c.name; }

class LlmToolErrors : public ::testing::TestWithParam<LlmBadInput> {};

TEST_P(LlmToolErrors, ExitOneNamingValueAndFix) {
  NPU_REQUIRE_SHARED_OR_SKIP(npu::test::shared_path("models") + "/llm");
  std::vector<std::string> args{"llm"};
  const std::string llm_dir = npu::test::shared_path("models") + "/llm";
  for (const auto& a : GetParam().args)
    args.push_back(a == "GPT2"         ? pair("gpt2_tiny", "gpt2_tiny")
                   : a == "GPT2_LLAMA" ? pair("gpt2_tiny", "llama_tiny")
                   : a == "DECODE2"    ? llm_dir + "/gpt2_tiny-decode.onnx," + llm_dir + "/gpt2_tiny-decode.onnx"
                   : a == "DIR_PAIR"   ? llm_dir + "," + llm_dir
                                       : a);
  args.insert(args.end(), {"--out", npu::test::fresh_dir(std::string("llm-err-") + GetParam().name)});
  const auto r = run_npu(args);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex(GetParam().expect))) << r.output;
}

INSTANTIATE_TEST_SUITE_P(
    BadInputs, LlmToolErrors,
    ::testing::Values(
        LlmBadInput{"prompt", {"GPT2", "--hw", "configs/edge-npu-ddr4.yaml", "--prompt", "100"},
                    "--prompt 100: error: .*past length of 127.*give --prompt 127"},
        LlmBadInput{"batch0", {"GPT2", "--hw", "configs/edge-npu-ddr4.yaml", "--batch", "0"},
                    "--batch: '0' is not an integer from 1 to 9223372036854775807 \\(2\\^63 - 1\\) \\(sequences decoded "
                    "together, e.g. --batch 1\\)"},
        LlmBadInput{"batch2", {"GPT2", "--hw", "configs/edge-npu-ddr4.yaml", "--batch", "2"},
                    "--batch 2: error: the ONNX pair .* was exported at batch 1 \\(fixed shapes\\); give --batch 1"},
        LlmBadInput{"generate", {"GPT2", "--hw", "configs/edge-npu-ddr4.yaml", "--generate", "2"},
                    "--generate 2: error: prompt 127 \\+ generate 2 tokens is over the model's context of 128.*"
                    "give --generate 1 or less, or re-export the pair with export_llm.py for a longer context"},
        // A G near 2^63 must not wrap prompt + G into a small number (it ran simulations once).
        LlmBadInput{"generate_huge", {"gpt2", "--hw", "configs/edge-npu-ddr4.yaml", "--generate", "9223372036854775300"},
                    "--generate 9223372036854775300: error: .*over the model's context of 1024.*give --generate 512 or less, or a shorter --prompt"},
        // 0 is a value, not "the default": refused like a negative count.
        LlmBadInput{"prompt0", {"gpt2", "--hw", "configs/edge-npu-ddr4.yaml", "--prompt", "0"},
                    "--prompt: '0' is not an integer from 1 to 9223372036854775807 .*\\(prompt tokens, e.g. --prompt 128\\)"},
        LlmBadInput{"generate0", {"gpt2", "--hw", "configs/edge-npu-ddr4.yaml", "--generate", "0"},
                    "--generate: '0' is not an integer from 1 to 9223372036854775807 .*\\(generated tokens, e.g. "
                    "--generate 32\\)"},
        // The prompt alone fills gpt2's 1024-token context: the message blames --prompt.
        LlmBadInput{"prompt_fills", {"gpt2", "--hw", "configs/edge-npu-ddr4.yaml", "--prompt", "1024"},
                    "--prompt 1024: error: the model's context is 1024 tokens.*give --prompt 1023 or less"},
        // Past int64: CLI11 clamped it to 2^63 - 1 silently; refused naming the range (integer_option.hpp).
        LlmBadInput{"prompt_past_int64", {"gpt2", "--hw", "configs/edge-npu-ddr4.yaml", "--prompt", "99999999999999999999"},
                    "--prompt: '99999999999999999999' is not an integer from 1 to 9223372036854775807"},
        LlmBadInput{"samples1", {"gpt2", "--hw", "configs/edge-npu-ddr4.yaml", "--samples", "1"},
                    "--samples 1: error: interpolation needs at least 2.*--every-step"},
        LlmBadInput{"jobs0", {"gpt2", "--hw", "configs/edge-npu-ddr4.yaml", "-j", "0"},
                    "--jobs: '0' is not an integer from 1 to 1024"},
        // CLI11's own range text before (new-user finding), unlike every other integer option.
        LlmBadInput{"max_instructions0", {"gpt2", "--hw", "configs/edge-npu-ddr4.yaml", "--max-instructions", "0"},
                    "--max-instructions: '0' is not an integer from 1 to 1099511627776 \\(instructions a program "
                    "may hold, e.g. --max-instructions 6000000\\)"},
        LlmBadInput{"strategies_empty", {"gpt2", "--hw", "configs/edge-npu-ddr4.yaml", "--strategies", ""},
                    "--strategies '': error: empty entry in the list"},
        // Each pair's runs and rows would be written twice (summary.csv held every run twice).
        LlmBadInput{"strategies_typo", {"gpt2", "--hw", "configs/edge-npu-ddr4.yaml", "--strategies", "nonee"},
                    "strategy 'nonee': error: unknown strategy \\(did you mean 'none'\\?\\)"},
        LlmBadInput{"strategies_twice", {"gpt2", "--hw", "configs/edge-npu-ddr4.yaml", "--strategies", "none,none"},
                    "--strategies 'none': error: given twice"},
        LlmBadInput{"hw_twice",
                    {"gpt2", "--hw", "configs/edge-npu-ddr4.yaml", "--hw", "configs/edge-npu-ddr4.yaml"},
                    "--hw 'configs/edge-npu-ddr4.yaml': error: given twice"},
        LlmBadInput{"zoo_suffix", {"gpt2:decode=8", "--hw", "configs/edge-npu-ddr4.yaml"},
                    "MODEL 'gpt2:decode=8': error: npu llm takes the bare zoo name.*give 'gpt2' with --prompt"},
        LlmBadInput{"zoo", {"llama-2-7", "--hw", "configs/edge-npu-ddr4.yaml"},
                    "MODEL 'llama-2-7': error: not a zoo LLM \\(did you mean 'llama-2-7b'\\?\\)"},
        // Two decode exports: the first has past.* inputs, so TTFT would be one decode step.
        LlmBadInput{"decode_twice", {"DECODE2", "--hw", "configs/edge-npu-ddr4.yaml"},
                    "gpt2_tiny-decode.onnx: error: the prefill export has a past.\\* input \\('past.*'.*so it is a "
                    "decode export; give the prefill export first: PREFILL.onnx,DECODE.onnx"},
        LlmBadInput{"one_missing_file", {"/nonexistent/model.onnx", "--hw", "configs/edge-npu-ddr4.yaml"},
                    "/nonexistent/model.onnx: error: no such file; MODEL is a zoo LLM name or PREFILL.onnx,DECODE.onnx"},
        LlmBadInput{"pair_directory", {"DIR_PAIR", "--hw", "configs/edge-npu-ddr4.yaml"},
                    "llm: error: is a directory; MODEL is a zoo LLM name or PREFILL.onnx,DECODE.onnx"},
        LlmBadInput{"weights",
                    {"GPT2_LLAMA", "--hw", "configs/edge-npu-ddr4.yaml"},
                    "weights differ: the prefill export's '.*' \\[256, 256\\] has no copy.*export both phases from "
                    "the same checkpoint"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(LlmTool, KvCacheLargerThanDdr) {
  NPU_REQUIRE_SHARED_OR_SKIP(npu::test::shared_path("models") + "/llm");
  // The edge preset with one rank of one 64-column row per bank: 1 channel x 1 rank x 16 banks x
  // 1 row x 64 columns x 8 bus bytes = 8192 bytes of DDR. GPT-2 tiny's cache at context 128:
  // 2 x 2 layers x 4 heads x 64 = 1024 int8 elements per token x 128 = 131072 bytes.
  const std::string dir = npu::test::fresh_dir("llm-kv-ddr");
  std::string yaml = npu::test::read_file(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  yaml = std::regex_replace(yaml, std::regex("\n  rows: 65536[^\n]*"), "\n  rows: 1");
  yaml = std::regex_replace(yaml, std::regex("\n  columns: 1024[^\n]*"), "\n  columns: 64");
  yaml = std::regex_replace(yaml, std::regex("\n  ranks: 2[^\n]*"), "\n  ranks: 1");
  std::ofstream(dir + "/small.yaml") << yaml;
  const auto r = run_npu({"llm", pair("gpt2_tiny", "gpt2_tiny"), "--hw", dir + "/small.yaml", "--out", dir + "/o"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("KV cache at context 128 and batch 1 is 131072 bytes"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("larger than the config's DDR of 8192 bytes"), std::string::npos) << r.output;
}

// An --out that cannot be created (under a regular file) exits 1 naming it, before any run.
TEST(LlmTool, UnwritableOutFolder) {
  const std::string dir = npu::test::fresh_dir("llm-out-file");
  std::ofstream(dir + "/file") << "x";
  const auto r = run_npu({"llm", "gpt2", "--hw", "configs/edge-npu-ddr4.yaml", "--out", dir + "/file/sub"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex(".*/file/sub: error: cannot create the output folder: .*/file' exists and is not a folder")))
      << r.output;
  EXPECT_EQ(r.output.find("simulations"), std::string::npos) << r.output;  // nothing ran
}

// An experiment's folder given as --out: npu llm would have replaced its summary.* with the LLM's
// runs, exit 0 (new-user finding). Refused before any run; the experiment's files stay.
TEST(LlmTool, AnExperimentsFolderIsRefusedAsOut) {
  const std::string dir = npu::test::fresh_dir("llm-out-experiment");
  std::ofstream(dir + "/plan.json")
      << R"({"format": "npu-plan 1", "kind": "experiment", "cells": [{"key": "k", "run_dir": "runs/resnet18__edge-npu-ddr4__none"}]})";
  std::ofstream(dir + "/summary.csv") << "model\nresnet18\n";
  const auto r = run_npu({"llm", "gpt2", "--hw", "configs/edge-npu-ddr4.yaml", "--out", dir});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("--out " + dir + ": error: the folder holds an experiment (" + dir +
                          "/plan.json), whose summary.csv/json/md npu llm would replace"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(npu::test::read_file(dir + "/summary.csv"), "model\nresnet18\n");
  // A folder whose plan holds npu llm's own runs (an interrupted npu llm into it) is not refused:
  // the run goes on and writes its llm.* (the tiny pair's one decode step).
  NPU_REQUIRE_SHARED_OR_SKIP(npu::test::shared_path("models") + "/llm");
  const std::string own = npu::test::fresh_dir("llm-out-own");
  std::ofstream(own + "/plan.json")
      << R"({"format": "npu-plan 1", "kind": "experiment", "cells": [{"key": "k", "run_dir": "runs/gpt2_tiny__edge-npu-ddr4__none__prefill127"}]})";
  const auto again = run_npu({"llm", pair("gpt2_tiny", "gpt2_tiny"), "--hw", "configs/edge-npu-ddr4.yaml",
                              "--strategies", "none", "--generate", "1", "--out", own});
  EXPECT_EQ(again.status, 0) << again.output;
  EXPECT_TRUE(std::filesystem::exists(own + "/llm.json")) << again.output;
}

// The other way round: npu experiment and npu sweep into an npu llm folder replaced its summary.*
// and plan.json, after which npu llm refused its own folder (new-user finding). Both refuse it
// before any run; the llm's files stay.
TEST(LlmTool, AnLlmFolderIsRefusedAsExperimentOrSweepOut) {
  const std::string dir = npu::test::fresh_dir("llm-folder-taken");
  std::ofstream(dir + "/llm.json") << "[]\n";
  std::ofstream(dir + "/summary.csv") << "model\ngpt2\n";
  const auto e = run_npu({"experiment", "--model", "resnet18", "--hw", "configs/edge-npu-ddr4.yaml", "--strategies",
                          "none", "--out", dir});
  EXPECT_EQ(e.status, 1) << e.output;
  EXPECT_NE(e.output.find("--out " + dir + ": error: the folder holds an npu llm run (" + dir +
                          "/llm.json), whose summary.csv/json/md and plan.json npu experiment would replace"),
            std::string::npos)
      << e.output;
  std::ofstream(dir + "/spec.yaml") << "base: edge-npu-ddr4\nmodels: [resnet18]\nstrategies: [none]\n";
  const auto s = run_npu({"sweep", dir + "/spec.yaml", "--out", dir});
  EXPECT_EQ(s.status, 1) << s.output;
  EXPECT_NE(s.output.find("plan.json npu sweep would replace; give npu sweep a folder of its own"), std::string::npos)
      << s.output;
  EXPECT_EQ(npu::test::read_file(dir + "/summary.csv"), "model\ngpt2\n");
}
