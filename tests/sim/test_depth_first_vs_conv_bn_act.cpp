// Issue 28, kind 1: `depth-first` is never slower than `conv-bn-act` on the torchvision exports
// (../shared/models/torchvision and $NPU_TORCHVISION_DIR), edge preset, as on the zoo. Until
// the SRAM-plan rule put latency first, AlexNet's depth-first kept a 256 KiB plan and took
// 13.51 ms against conv-bn-act's 6.46 ms (sram_plans.hpp, improves_on); the unit test of the
// rule uses those figures (tests/compiler/test_sram_plans.cpp). Each simulation is its own
// `npu simulate` process; the asserted values are relations between two simulations.
#include <gtest/gtest.h>

#include <filesystem>

#include "shared_data.hpp"
#include "tool_runner.hpp"

namespace {

double simulated_ms(const std::string& model, const std::string& strategy, const std::string& dir) {
  const std::string out = dir + "/" + strategy;
  const auto r = npu::test::run_npu({"simulate", "--model", model, "--hw", "configs/edge-npu-ddr4.yaml", "--strategy",
                                     strategy, "--out", out, "--quiet"});
  EXPECT_EQ(r.status, 0) << r.output;
  if (r.status != 0) return -1;
  return npu::test::read_json(out + "/run_summary.json").at("latency_ms").get<double>();
}

TEST(DepthFirstVsConvBnAct, NeverSlowerOnTheTorchvisionExports) {
  const auto files = npu::test::torchvision_exports();
  if (files.empty()) {
    NPU_REQUIRE_SHARED_OR_SKIP(npu::test::shared_path("models/torchvision"));
    FAIL() << "../shared/models/torchvision holds no .onnx files (and NPU_TORCHVISION_DIR adds none)";
  }
  for (const auto& f : files) {
    SCOPED_TRACE(f);
    const std::string dir = npu::test::fresh_dir("df-vs-cba-" + std::filesystem::path(f).stem().string());
    const double cba = simulated_ms(f, "conv-bn-act", dir);
    const double df = simulated_ms(f, "depth-first", dir);
    ASSERT_GT(cba, 0);
    EXPECT_LE(df, cba) << "depth-first " << df << " ms, conv-bn-act " << cba << " ms";
  }
}

}  // namespace
