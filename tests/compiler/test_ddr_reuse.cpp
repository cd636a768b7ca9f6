// DDR regions of intermediates reused by lifetime (docs/compiler.md, "DDR placement"): a
// network whose tensors exceed the DDR one region each still compiles, passes the program
// checks, and computes the reference outputs.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>

#include "fp32_config.hpp"
#include "shared_data.hpp"
#include "tool_runner.hpp"

namespace {

/// The fp32 edge preset with 128 DDR rows: 1 channel x 2 ranks x 16 banks x 128 rows x 1024
/// columns x 8 B = 33,554,432 B (32 MiB). MobileNetV2's DDR tensors one region each are
/// 42,140,480 B (weights 13,951,264 + input 602,112 + output 4,000 + 63 intermediates
/// 27,583,104; the .tensor sizes), so only reuse makes it fit.
std::string small_ddr_fp32(const std::string& dir, const std::string& rows = "128") {
  const std::string path = dir + "/edge-fp32-" + rows + "-rows.yaml";
  const std::string yaml = npu::test::read_file(npu::test::fp32_config(dir));
  EXPECT_NE(yaml.find("rows: 65536"), std::string::npos);
  std::ofstream(path) << std::regex_replace(yaml, std::regex("rows: 65536"), "rows: " + rows);
  return path;
}

TEST(DdrReuse, MobileNetInA32MiBDdrComputesTheReference) {
  const std::string model = npu::test::shared_path("models/mobilenet_v2_bn.onnx");
  NPU_REQUIRE_SHARED_OR_SKIP(model);
  const std::string dir = npu::test::fresh_dir("ddr_reuse");
  const std::string hw = small_ddr_fp32(dir);
  // The program declares intermediates at the same address, and npu asm check (tensor-decl:
  // overlapping intermediates must be ordered; data flow; SRAM races) accepts it.
  const std::string prog = dir + "/m.npuasm";
  auto r = npu::test::run_npu({"compile", model, "--hw", hw, "--strategy", "residual", "-o", prog});
  ASSERT_EQ(r.status, 0) << r.output;
  std::map<std::string, int> at;
  std::istringstream text(npu::test::read_file(prog));
  int shared = 0;
  for (std::string line; std::getline(text, line);)
    if (line.rfind(".tensor", 0) == 0 && line.find("kind=intermediate") != std::string::npos) {
      const std::string addr = line.substr(line.find(" ddr=") + 5, line.find(" bytes=") - line.find(" ddr=") - 5);
      shared += at[addr]++ > 0;
    }
  EXPECT_GT(shared, 0);
  r = npu::test::run_npu({"asm", "check", prog, "--hw", hw});
  EXPECT_EQ(r.status, 0) << r.output;
  // With data: every layer-by-layer strategy equals the reference interpreter (fp32, 1e-4).
  const std::string out = dir + "/verify";
  r = npu::test::run_npu({"verify", model, "--hw", hw, "--strategies", "none,residual", "--out", out});
  EXPECT_EQ(r.status, 0) << r.output;
}

TEST(DdrReuse, TooSmallEvenWithReuseNamesBothSizes) {
  const std::string model = npu::test::shared_path("models/mobilenet_v2_bn.onnx");
  NPU_REQUIRE_SHARED_OR_SKIP(model);
  const std::string dir = npu::test::fresh_dir("ddr_reuse_small");
  const std::string hw = small_ddr_fp32(dir, "32");  // 8 MiB: less than the weights alone
  const auto r = npu::test::run_npu({"compile", model, "--hw", hw, "-o", dir + "/m.npuasm"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("with intermediate regions reused by lifetime) but the DDR holds 8388608"), std::string::npos)
      << r.output;
}

}  // namespace
