// scripts/plot_experiment.py on an `npu report` folder whose rows repeat a (model, hw, strategy)
// label (two experiments of one model and config under other options: traces here) raised
// "ValueError: ... inhomogeneous shape" in the strategy bars, and the second run's per-layer PNG
// would have overwritten the first's (new-user finding). Now the bars take the first of each
// label and say so on stderr, and each run folder gets a PNG of its own.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tool_runner.hpp"

namespace {

TEST(PlotScript, AReportWithTwoCellsOfOneLabelPlotsBothRunsAndSaysSo) {
  if (npu::test::run_shell("/usr/bin/python3 -c 'import matplotlib, pandas'").status != 0)
    GTEST_SKIP() << "python3-matplotlib / python3-pandas not installed (scripts/setup.sh)";
  const std::string dir = npu::test::fresh_dir("plot-dup-labels");
  for (const char* trace : {"", "timeline"}) {
    std::vector<std::string> args = {"experiment", "--model", "tests/data/tiny_convnet.onnx", "--hw",
                                     "configs/edge-npu-ddr4.yaml", "--strategies", "none,conv-bn-act",
                                     "--out", dir + (*trace ? "/traced" : "/plain"), "-q"};
    if (*trace) args.insert(args.end(), {"--trace", trace});
    const auto r = npu::test::run_npu(args);
    ASSERT_EQ(r.status, 0) << r.output;
  }
  auto r = npu::test::run_npu({"report", dir + "/plain", dir + "/traced", "--out", dir + "/rep"});
  ASSERT_EQ(r.status, 0) << r.output;
  ASSERT_NE(r.output.find("rows are labelled"), std::string::npos) << r.output;  // the report's own warning
  r = npu::test::run_shell("/usr/bin/python3 '" + std::string(NPU_SOURCE_DIR) + "/scripts/plot_experiment.py' '" +
                           dir + "/rep'");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("plot_experiment: warning: 2 label(s) name more than one cell"), std::string::npos)
      << r.output;
  EXPECT_TRUE(std::filesystem::exists(dir + "/rep/plots/strategies_tiny_convnet.png"));
  // Two cells per strategy (4 runs), each run folder's per-layer PNG kept: 4 files.
  int layer_pngs = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir + "/rep/plots"))
    layer_pngs += e.path().filename().string().rfind("layers_", 0) == 0;
  EXPECT_EQ(layer_pngs, 4);
}

}  // namespace
