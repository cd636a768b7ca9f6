// `npu experiment` / `npu llm` summaries carry the compiler's params-region warnings
// (compiler/src/driver/params_region_warning.hpp) as one `sram:` line per model, hw and
// strategy, not only in each child's runs/<id>/log.txt.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "npu/sim/experiment/experiment.hpp"
#include "tool_runner.hpp"

namespace npu::sim {
namespace {

RunSummary run_with(const std::string& model, std::vector<std::string> warnings) {
  RunSummary r;
  r.ok = true;
  r.job = {model, "configs/edge-npu-ddr4.yaml", "none", "", model + "__edge-npu-ddr4__none"};
  r.cycles = 1000;
  r.latency_ms = 1;
  r.params_region_warnings = std::move(warnings);
  return r;
}

// Two decode lengths of one zoo LLM make one line counting 2 runs, quoting the first layer's
// warning from "layer '" on; a run without the warning adds no line.
TEST(ParamsRegionSummary, OneLinePerModelHwAndStrategyWithTheFirstLayer) {
  const std::string dir = npu::test::fresh_dir("params-region-summary");
  const std::string w = "llama-3.2-1b:decode=5: warning: layer '/head/Gemm' (Gemm): its params region (1026048 B)";
  const std::vector<RunSummary> runs = {run_with("llama-3.2-1b:decode=5", {w}), run_with("llama-3.2-1b:decode=9", {w}),
                                        run_with("gpt2:decode=5", {})};
  const std::string text = write_summary(dir, runs);
  const std::string line =
      "sram: llama-3.2-1b edge-npu-ddr4 none: 1 layer(s) with a params region of a quarter of the SRAM or more; the "
      "first: layer '/head/Gemm' (Gemm): its params region (1026048 B) (2 run(s))\n";
  EXPECT_NE(text.find(line), std::string::npos) << text;
  EXPECT_EQ(text.find("sram: gpt2"), std::string::npos) << text;
  EXPECT_NE(npu::test::read_file(dir + "/summary.md").find(line), std::string::npos);
}

}  // namespace
}  // namespace npu::sim
