// `npu verify` calibration options that would be ignored are refused (docs/functional.md,
// "Calibration"): the percentile calibrator on an fp32 config, where nothing is quantised.
#include <gtest/gtest.h>

#include "fp32_config.hpp"
#include "tool_runner.hpp"

namespace {

TEST(VerifyCalibratorTool, PercentileCalibratorOnAnFp32ConfigIsRefused) {
  const std::string dir = npu::test::fresh_dir("verify-percentile-fp32");
  const std::string hw = npu::test::fp32_config(dir);
  const auto r = npu::test::run_npu({"verify", "tests/data/tiny_convnet.onnx", "--hw", hw, "--calibrator",
                                     "percentile", "--percentile", "99.9", "--out", dir + "/v"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("--calibrator percentile: error: it applies to int8 configs (post-training quantisation), "
                          "and " + hw + " is fp32"),
            std::string::npos)
      << r.output;
}

}  // namespace
