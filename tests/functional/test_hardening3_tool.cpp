// Inputs that were accepted but should not be (issue 27), run as a user runs the tool:
// NaN/Inf input values, a model whose outputs are all constants, and -q meaning the same in
// every command that runs work. Models are built in the test.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <string>

#include "npu/compiler/frontend/tensor_io.hpp"
#include "fp32_config.hpp"
#include "test_onnx_util.hpp"
#include "tool_runner.hpp"

namespace {

namespace fs = std::filesystem;
using npu::test::fresh_dir;
using npu::test::OnnxModel;
using npu::test::write_relu_model;
using npu::test::run_npu;

const std::string kTiny = std::string(NPU_SOURCE_DIR) + "/tests/data/tiny_convnet.onnx";

/// DIR/NAME.npy holding [1, 8] values 0..7 with `bad` at element 5.
std::string input_with(const std::string& dir, const std::string& name, float bad) {
  npu::compiler::RefTensor t;
  t.shape = {1, 8};
  t.f = {0, 1, 2, 3, 4, bad, 6, 7};
  const std::string path = dir + "/" + name + ".npy";
  npu::compiler::write_npy(path, t);
  return path;
}

TEST(NonFiniteInputs, VerifyRefusesNanAndInfByDefault) {
  const std::string dir = fresh_dir("nonfinite-verify");
  const std::string model = write_relu_model(dir), hw = npu::test::fp32_config(dir);
  const std::string nan = input_with(dir, "nan", std::numeric_limits<float>::quiet_NaN());
  const std::string inf = input_with(dir, "inf", -std::numeric_limits<float>::infinity());
  auto r = run_npu({"verify", model, "--hw", hw, "--strategies", "none", "--input", nan, "--out", dir + "/v1"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find(nan + " holds 1 non-finite value(s) (first: NaN at element 5)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--allow-nonfinite"), std::string::npos) << r.output;
  r = run_npu({"verify", model, "--hw", hw, "--strategies", "none", "--input", inf, "--out", dir + "/v2"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("(first: -Inf at element 5)"), std::string::npos) << r.output;
  // simulate --with-data reads inputs the same way.
  r = run_npu({"simulate", "--model", model, "--hw", hw, "--strategy", "none", "--with-data", "--input", nan, "--out",
               dir + "/s", "-q"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("non-finite"), std::string::npos) << r.output;
}

TEST(NonFiniteInputs, AllowedTheyRunWithAWarning) {
  const std::string dir = fresh_dir("nonfinite-allowed");
  const std::string model = write_relu_model(dir), hw = npu::test::fp32_config(dir);
  const std::string nan = input_with(dir, "nan", std::numeric_limits<float>::quiet_NaN());
  const auto r = run_npu({"verify", model, "--hw", hw, "--strategies", "none", "--input", nan, "--allow-nonfinite",
                          "--out", dir + "/v"});
  EXPECT_NE(r.output.find("warning: " + nan + " holds 1 non-finite value(s)"), std::string::npos) << r.output;
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("| none | y | ok |"), std::string::npos) << r.output;  // the child got --allow-nonfinite too
}

TEST(ConstantOutputs, AModelWhoseOutputsAreAllConstantsIsRefused) {
  // y = w1 + w2 of two initializers: folded at import, so nothing is left to compute.
  const std::string dir = fresh_dir("const-outputs");
  OnnxModel m(13);
  m.input("x", {1, 4});
  m.weight("w1", {1, 4});
  m.weight("w2", {1, 4});
  m.node("Add", "add", {"w1", "w2"}, {"y"});
  m.output("y");
  const std::string path = dir + "/const.onnx";
  std::ofstream(path, std::ios::binary) << m.bytes();
  const auto r = run_npu({"compile", path, "--hw", "configs/edge-npu-ddr4.yaml", "-o", dir + "/p.npuasm"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("error: every graph output is a constant (1 output(s), first 'y')"), std::string::npos)
      << r.output;
}

// -q: nothing on stdout or stderr on success, in every command that runs work.
TEST(QuietFlag, MeansTheSameInSimulateExperimentSweepAndVerify) {
  const std::string dir = fresh_dir("quiet");
  const std::string hw = "configs/edge-npu-ddr4.yaml";
  std::ofstream(dir + "/spec.yaml") << "base: edge-npu-ddr4\naxes: {sram.capacity: [1MiB]}\nmodels: [" + kTiny +
                                           "]\nstrategies: [none]\n";
  const std::vector<std::vector<std::string>> runs = {
      {"simulate", "--model", kTiny, "--hw", hw, "--strategy", "none", "--out", dir + "/s", "-q"},
      {"experiment", "--model", kTiny, "--hw", hw, "--strategies", "none", "--out", dir + "/e", "-q"},
      {"sweep", dir + "/spec.yaml", "--out", dir + "/w", "--quiet"},
      {"verify", write_relu_model(dir), "--hw", npu::test::fp32_config(dir), "--strategies", "none", "--out", dir + "/v",
       "-q"},
  };
  for (const auto& args : runs) {
    const auto r = run_npu(args);
    EXPECT_EQ(r.status, 0) << args[0] << ": " << r.output;
    EXPECT_EQ(r.output, "") << args[0];
  }
  EXPECT_TRUE(fs::exists(dir + "/e/summary.csv"));  // quiet, not idle
  EXPECT_TRUE(fs::exists(dir + "/w/summary.csv"));
}

}  // namespace
