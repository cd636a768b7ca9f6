// CLI messages a new-user test found unclear or inconsistent (report finding 6), each refused
// with exit 1 naming the flag, the value and the fix, or (a flag that does nothing) said in a note.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
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

const std::string kEdge = "configs/edge-npu-ddr4.yaml";

#define EXPECT_CONTAINS(text, part) EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)

// verify's flag is --input (simulate's alias --input-data): its errors name --input.
TEST(CliMessages, VerifyInputErrorsNameVerifysFlag) {
  const std::string dir = fresh_dir("msg-verify-input");
  const std::string model = write_relu_model(dir), hw = npu::test::fp32_config(dir);
  const auto r = run_npu({"verify", model, "--hw", hw, "--strategies", "none", "--input", "nosuch=f.npy", "--out",
                          dir + "/v"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_CONTAINS(r.output, "--input 'nosuch=f.npy': error: 'nosuch' is not a graph input (inputs: x)");
  EXPECT_EQ(r.output.find("--input-data"), std::string::npos) << r.output;
}

// A FILE without NAME= on a model of two inputs: taken for the input its TensorProto names (as
// an ONNX test data set's input_N.pb), else refused listing the inputs (new-user finding: the
// message said only "the model has 5 inputs; write NAME=FILE").
TEST(CliMessages, InputFileWithoutANameOnTwoInputsUsesItsTensorNameOrListsThem) {
  const std::string dir = fresh_dir("msg-input-two");
  OnnxModel m(13);
  m.input("a", {1, 4});
  m.input("b", {1, 4});
  m.node("Add", "add", {"a", "b"}, {"y"});
  m.output("y");
  const std::string model = dir + "/add.onnx", hw = npu::test::fp32_config(dir);
  std::ofstream(model, std::ios::binary) << m.bytes();
  npu::compiler::RefTensor t;
  t.shape = {1, 4};
  t.f = {1, 2, 3, 4};
  npu::compiler::write_tensor_pb(dir + "/named_b.pb", t, "b");
  npu::compiler::write_npy(dir + "/plain.npy", t);
  const auto named = run_npu({"simulate", "--model", model, "--hw", hw, "--strategy", "none", "--with-data",
                              "--input", dir + "/named_b.pb", "--out", dir + "/s1"});
  EXPECT_EQ(named.status, 0) << named.output;
  const auto plain = run_npu({"simulate", "--model", model, "--hw", hw, "--strategy", "none", "--with-data",
                              "--input", dir + "/plain.npy", "--out", dir + "/s2"});
  EXPECT_EQ(plain.status, 1) << plain.output;
  EXPECT_CONTAINS(plain.output, "error: the model has 2 inputs ('a', 'b') and the file names none of them\n  fix: "
                                "write NAME=FILE, e.g. --input a=" + dir + "/plain.npy");
}

// --calib given an existing file: "a file, not a folder", not "no such folder".
TEST(CliMessages, CalibGivenAFileSaysItIsAFile) {
  const std::string dir = fresh_dir("msg-calib-file");
  const std::string model = write_relu_model(dir);
  const auto r = run_npu({"verify", model, "--hw", kEdge, "--strategies", "none", "--calib", model, "--out",
                          dir + "/v"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_CONTAINS(r.output, "--calib '" + model + "': error: a file, not a folder; give a folder of calibration");
}

// A 3-value file for the 8-value input: the input's shape and the fix are given.
TEST(CliMessages, WrongSizeInputFileGivesTheShapeAndTheFix) {
  const std::string dir = fresh_dir("msg-input-size");
  const std::string model = write_relu_model(dir), hw = npu::test::fp32_config(dir);
  npu::compiler::RefTensor t;
  t.shape = {3};
  t.f = {1, 2, 3};
  npu::compiler::write_npy(dir + "/small.npy", t);
  const auto r = run_npu({"simulate", "--model", model, "--hw", hw, "--strategy", "none", "--with-data", "--input",
                          dir + "/small.npy", "--out", dir + "/s"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_CONTAINS(r.output, "small.npy: error: 3 values, graph input 'x' has 8 (shape 1x8)\n  fix: give a file of "
                            "that input's shape, or compile the model for the file's shape with --input-shape x=DIMS");
}

// `npu run` on an ONNX file points to npu simulate instead of a missing .npuasm header.
TEST(CliMessages, RunOnAnOnnxModelPointsToSimulate) {
  const std::string dir = fresh_dir("msg-run-onnx");
  const std::string model = write_relu_model(dir);
  const auto r = run_npu({"run", model, "--hw", kEdge});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_CONTAINS(r.output, model + ": error: an ONNX model, not an .npuasm program");
  EXPECT_CONTAINS(r.output, "fix: npu simulate --model " + model + " --hw " + kEdge + " --out DIR");
  EXPECT_EQ(r.output.find("version header"), std::string::npos) << r.output;
}

// An --input-shape naming no input is refused before any run starts (it was 7 failed runs).
TEST(CliMessages, ExperimentChecksInputShapeNamesUpFront) {
  const std::string dir = fresh_dir("msg-exp-shape");
  const auto r = run_npu({"experiment", "--model", "resnet18", "--hw", kEdge, "--strategies", "none,residual",
                          "--input-shape", "nosuch=1x3x4x4", "--out", dir + "/e"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_CONTAINS(r.output, "resnet18: error: --input-shape names 'nosuch', but the built-in model's only input is "
                            "'input'");
  EXPECT_FALSE(fs::exists(dir + "/e/runs"));
}

// A near zoo name gets a did-you-mean, as npu llm gives one.
TEST(CliMessages, ExperimentSuggestsTheNearestModelName) {
  const std::string dir = fresh_dir("msg-exp-model");
  const auto r = run_npu({"experiment", "--model", "resnet51", "--hw", kEdge, "--out", dir + "/e"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_CONTAINS(r.output, "--model 'resnet51': error: not a zoo model and not an .onnx path (did you mean 'resnet50'?)");
}

// --input-seed seeds the inputs of a run with data: without --with-data it is refused, like
// --input-data; --dynamic-size on a model with no run-time size is said to do nothing.
TEST(CliMessages, FlagsThatWouldDoNothingAreRefusedOrSaid) {
  const std::string dir = fresh_dir("msg-noop-flags");
  const std::string model = write_relu_model(dir), hw = npu::test::fp32_config(dir);
  auto r = run_npu({"simulate", "--model", model, "--hw", hw, "--strategy", "none", "--input-seed", "5", "--out",
                    dir + "/s1"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_CONTAINS(r.output, "--input-seed: error: it seeds the generated inputs of a run with data; add --with-data");
  r = run_npu({"simulate", "--model", model, "--hw", hw, "--strategy", "none", "--dynamic-size", "7", "--out",
               dir + "/s2"});
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_CONTAINS(r.output, "note: --dynamic-size 7 does nothing: every size in the model is known before the run");
  r = run_npu({"simulate", "--model", model, "--hw", hw, "--strategy", "none", "--out", dir + "/s3"});
  EXPECT_EQ(r.output.find("--dynamic-size"), std::string::npos) << r.output;
  // A zoo model says so too (new-user finding: resnet18 took the flag in silence).
  r = run_npu({"compile", "resnet18", "--hw", "configs/edge-npu-ddr4.yaml", "--strategy", "none", "--dynamic-size", "5",
               "-o", dir + "/r18.npuasm"});
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_CONTAINS(r.output, "resnet18: note: --dynamic-size 5 does nothing: every size in the model is known before "
                            "the run");
}

}  // namespace

// A value of the wrong type for a typed option (CLI11's ConversionError "Could not convert:
// --tolerance = abc") names the command, the option, its type and the help (new-user finding).
TEST(CliMessages, AValueOfTheWrongTypeNamesTheOptionAndItsType) {
  const auto r = run_npu({"verify", "tests/data/tiny_convnet.onnx", "--hw", "configs/edge-npu-ddr4.yaml",
                          "--tolerance", "abc"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_CONTAINS(r.output, "npu verify: error: --tolerance: 'abc' is not a number (Largest relative error that "
                            "passes");
  EXPECT_CONTAINS(r.output, "fix: give --tolerance FLOAT\n  run `npu verify --help` for the options");
  // A tolerance that overflows to inf would pass every comparison (new-user finding).
  const auto inf = run_npu({"verify", "tests/data/tiny_convnet.onnx", "--hw", "configs/edge-npu-ddr4.yaml",
                            "--tolerance", "1e999"});
  EXPECT_EQ(inf.status, 1) << inf.output;
  EXPECT_CONTAINS(inf.output, "--tolerance: error: must be a finite number > 0, got inf (e.g. 1e-4)");
}
