// The one-op reproductions of ../shared/models/cases and the small torchvision exports of
// ../shared/models/torchvision simulated end to end with `npu experiment --npu-only`: every
// op on the NPU (a host placement would fail the run), summary rows ok, no host columns set.
#include <gtest/gtest.h>

#include <filesystem>

#include "shared_data.hpp"
#include "tool_runner.hpp"

namespace fs = std::filesystem;
using npu::test::run_npu;

TEST(RealExportsRun, CasesAndTorchvisionExportsSimulateWithEveryOpOnTheNpu) {
  const std::string models = npu::test::shared_path("models");
  NPU_REQUIRE_SHARED_OR_SKIP(models + "/cases");
  NPU_REQUIRE_SHARED_OR_SKIP(models + "/torchvision");
  std::vector<std::string> args{"experiment", "--out", npu::test::fresh_dir("cases-run"), "-j", "2",
                                "--strategies", "none,residual", "--npu-only", "--hw",
                                "configs/edge-npu-ddr4.yaml"};
  int n = 0;
  for (const char* dir : {"/cases", "/torchvision"})
    for (const auto& e : fs::directory_iterator(models + dir))
      if (e.path().extension() == ".onnx") {
        args.push_back("--model");
        args.push_back(e.path().string());
        ++n;
      }
  auto r = run_npu(args);
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string out = args[2];
  auto summary = npu::test::read_json(out + "/summary.json");
  ASSERT_EQ(summary.size(), std::size_t(2 * n));
  for (const auto& row : summary) {
    SCOPED_TRACE(row.at("model").get<std::string>() + " " + row.at("strategy").get<std::string>());
    ASSERT_EQ(row.at("status"), "ok") << row.dump();
    EXPECT_EQ(row.at("host_nodes").get<int>(), 0);
    // Fusion never adds traffic (op_unsqueeze.onnx moves none: no ratio, null).
    if (!row.at("ddr_saved_pct").is_null()) {
      EXPECT_GE(row.at("ddr_saved_pct").get<double>(), -1e-9);
    }
  }
}
