// `npu experiment` / `npu llm` summaries say when a run compiled for the configured SRAM only
// because its model is over the SRAM-plan ladder's 1e9 parameters (docs/llm.md: "the run's
// output says so"), not only the child's runs/<id>/log.txt.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "npu/sim/experiment/experiment.hpp"
#include "tool_runner.hpp"

namespace npu::sim {
namespace {

RunSummary ok_run(const std::string& model, std::int64_t skipped) {
  RunSummary r;
  r.ok = true;
  r.job = {model, "configs/hbm2-npu.yaml", "transformer", "", model + "__hbm2-npu__transformer"};
  r.cycles = 1000;
  r.latency_ms = 1;
  r.ladder_skipped_params = skipped;
  return r;
}

// Two phases of one zoo LLM make one line counting 2 runs; a run that kept the ladder adds none.
TEST(LadderSummary, SkippedLadderIsOneLinePerModelHwAndStrategy) {
  const std::string dir = npu::test::fresh_dir("ladder-summary");
  const std::vector<RunSummary> runs = {ok_run("llama-3.2-1b:prefill=4", 1235746816),
                                        ok_run("llama-3.2-1b:decode=5", 1235746816), ok_run("gpt2:decode=5", 0)};
  const std::string text = write_summary(dir, runs);
  const std::string line =
      "sram: llama-3.2-1b hbm2-npu transformer: compiled for the configured SRAM only, not its smaller-SRAM plans: "
      "the model's 1235746816 parameters are more than the plan ladder's limit of 1e9 (2 run(s))\n";
  EXPECT_NE(text.find(line), std::string::npos) << text;
  EXPECT_EQ(text.find("gpt2 hbm2-npu transformer: compiled for the configured"), std::string::npos) << text;
  EXPECT_NE(npu::test::read_file(dir + "/summary.md").find(line), std::string::npos);
}

}  // namespace
}  // namespace npu::sim
