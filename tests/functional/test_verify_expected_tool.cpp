// `npu verify --expected`: an outside reference that the outputs do not match fails the run
// (exit 1, each mismatch named with its errors and the tolerance); one they match passes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "npu/compiler/frontend/tensor_io.hpp"
#include "fp32_config.hpp"
#include "shared_data.hpp"
#include "tool_runner.hpp"

namespace {

using npu::compiler::RefTensor;

// Our fp32 reference's output of tiny_convnet for the default seeded input, as `npu verify`
// writes it (outputs/reference/output.npy), from a run without --expected.
RefTensor reference_output(const std::string& dir, const std::string& hw) {
  const auto r = npu::test::run_npu(
      {"verify", "tests/data/tiny_convnet.onnx", "--hw", hw, "--strategies", "none", "--out", dir + "/ref", "-q"});
  EXPECT_EQ(r.status, 0) << r.output;
  return npu::compiler::read_tensor_file(dir + "/ref/outputs/reference/output.npy");
}

TEST(VerifyExpectedTool, OutputsFarFromExpectedExitOneNamingEachMismatchAndTheTolerance) {
  // --expected = 2 x ref: |ref - 2 ref| = |ref|, so max abs = max |ref| and the relative error
  // max |ref| / max |2 ref| = 0.5 exactly for our reference; the simulator's output is within
  // 1e-6 of ref (fp32 rounding), so its relative error is 0.5 to 3 digits. Before the fix this
  // run printed "all pass" and exited 0 (sim_vs_expected was computed but never counted).
  const std::string dir = npu::test::fresh_dir("verify-expected-bad");
  const std::string hw = npu::test::fp32_config(dir);
  RefTensor doubled = reference_output(dir, hw);
  ASSERT_EQ(doubled.f.size(), 10u);
  double max_ref = 0;
  for (float& v : doubled.f) {
    max_ref = std::max(max_ref, double(std::abs(v)));
    v *= 2;  // exact in fp32
  }
  npu::compiler::write_npy(dir + "/doubled.npy", doubled);
  const auto r = npu::test::run_npu({"verify", "tests/data/tiny_convnet.onnx", "--hw", hw, "--strategies",
                                     "none,conv-bn", "--expected", dir + "/doubled.npy", "--out", dir + "/v"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_EQ(r.output.find("all pass"), std::string::npos) << r.output;
  const std::string abs = fmt::format("{:.3g}", max_ref);
  EXPECT_NE(r.output.find("error: our fp32 reference vs --expected 'output': max abs " + abs +
                          ", relative 0.5 > tolerance 0.0001"),
            std::string::npos)
      << r.output;
  for (const char* s : {"none", "conv-bn"})
    EXPECT_NE(r.output.find(std::string("error: strategy ") + s + ": simulator vs --expected 'output': max abs " + abs +
                            ", relative 0.5 > tolerance 0.0001"),
              std::string::npos)
        << s << "\n" << r.output;
  // No --input: the inputs were generated, the likely reason (new-user finding: not said).
  EXPECT_NE(r.output.find("the inputs were generated (seed 1), and --expected holds the output for the input it was "
                          "made with\n  fix: give that input too: --input NAME=FILE"),
            std::string::npos)
      << r.output;
  const auto j = npu::test::read_json(dir + "/v/verify.json");
  for (const auto& row : j.at("rows")) {
    EXPECT_EQ(row.at("pass"), false) << row.dump();
    EXPECT_NEAR(row.at("sim_vs_expected").at(0).at("rel_error").get<double>(), 0.5, 1e-6) << row.dump();
  }
}

TEST(VerifyExpectedTool, ExpectedEqualToTheReferencePasses) {
  // The reference itself as --expected: relative error 0 for the reference, <= 1e-4 for the
  // simulator (fp32 rounding, docs/functional.md): exit 0 and "all pass".
  const std::string dir = npu::test::fresh_dir("verify-expected-good");
  const std::string hw = npu::test::fp32_config(dir);
  npu::compiler::write_npy(dir + "/same.npy", reference_output(dir, hw));
  const auto r = npu::test::run_npu({"verify", "tests/data/tiny_convnet.onnx", "--hw", hw, "--strategies", "none",
                                     "--expected", dir + "/same.npy", "--out", dir + "/v"});
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("all pass"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("--expected '"), std::string::npos) << r.output;
}

TEST(VerifyExpectedTool, Int8ConfigFailsWhenTheReferenceIsFarFromExpected) {
  // An int8 config compares our fp32 reference with --expected (its strategies pass by being
  // bit-exact with the integer reference): 2 x ref is 0.5 off, so the run exits 1.
  const std::string dir = npu::test::fresh_dir("verify-expected-int8");
  RefTensor doubled = reference_output(dir, npu::test::fp32_config(dir));
  for (float& v : doubled.f) v *= 2;
  npu::compiler::write_npy(dir + "/doubled.npy", doubled);
  const auto r = npu::test::run_npu({"verify", "tests/data/tiny_convnet.onnx", "--hw", "configs/edge-npu-ddr4.yaml",
                                     "--strategies", "none", "--calib-count", "1", "--expected",
                                     dir + "/doubled.npy", "--out", dir + "/v"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("error: our fp32 reference vs --expected 'output'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("relative 0.5 > tolerance 0.0001"), std::string::npos) << r.output;
}

}  // namespace

namespace {

// A token id past the vocabulary in --input data was reported against the model file alone
// (new-user finding); the error now names the --input files too. gpt2_tiny's wte has 2048 rows
// (../shared/models/llm/README), so id 5000 is out of range.
TEST(VerifyInputData, AValueTheGraphRefusesNamesTheInputFile) {
  NPU_REQUIRE_SHARED_OR_SKIP(npu::test::shared_path("models") + "/llm");
  const std::string dir = npu::test::fresh_dir("verify-input-range");
  RefTensor ids;
  ids.shape = {1, 1};
  ids.type = npu::compiler::ElemType::Int64;
  ids.i = {5000};
  npu::compiler::write_npy(dir + "/ids.npy", ids);
  const auto r = npu::test::run_npu({"verify", npu::test::shared_path("models") + "/llm/gpt2_tiny-decode.onnx", "--hw",
                                     "configs/edge-npu-ddr4.yaml", "--input", "input_ids=" + dir + "/ids.npy", "--out",
                                     dir + "/o"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("index 5000 is out of range for a dim of 2048\n  the model's inputs came from --input "
                          "input_ids=" + dir + "/ids.npy: check their values"),
            std::string::npos)
      << r.output;
}

}  // namespace
