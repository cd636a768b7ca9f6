// `npu simulate --with-data` as a user runs it, tensor files (.npy / TensorProto), and the
// acceptance check on the shared real models (skipped with a message when absent).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>

#include "npu/compiler/frontend/tensor_io.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "fp32_config.hpp"
#include "shared_data.hpp"
#include "tool_runner.hpp"

namespace {

using npu::compiler::RefTensor;

using npu::test::fp32_config;

// The .npy header layout is tested with the writer (tests/compiler/test_tensor_io.cpp); here
// read_tensor_file reads back what the writers wrote, by file name.
TEST(TensorFiles, NpyAndPbRoundTripThroughReadTensorFile) {
  const std::string dir = npu::test::fresh_dir("npy");
  RefTensor t;
  t.shape = {2, 3};
  t.f = {1, 2, 3, 4, 5, 6};
  npu::compiler::write_npy(dir + "/a.npy", t);
  const RefTensor back = npu::compiler::read_tensor_file(dir + "/a.npy");
  EXPECT_EQ(back.shape, t.shape);
  EXPECT_EQ(back.f, t.f);
  npu::compiler::write_tensor_pb(dir + "/a.pb", t, "y");
  std::string name;
  const RefTensor pb = npu::compiler::read_tensor_file(dir + "/a.pb", &name);
  EXPECT_EQ(name, "y");
  EXPECT_EQ(pb.shape, t.shape);
  EXPECT_EQ(pb.f, t.f);
}

TEST(TensorFiles, BadFilesAreRefusedNamingTheProblem) {
  const std::string dir = npu::test::fresh_dir("npy-bad");
  auto error_of = [&](const std::string& name, const std::string& bytes) {
    std::ofstream(dir + "/" + name, std::ios::binary) << bytes;
    try {
      npu::compiler::read_tensor_file(dir + "/" + name);
    } catch (const npu::ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("<no error>");
  };
  EXPECT_NE(error_of("a.npy", "hello").find("no \\x93NUMPY magic"), std::string::npos);
  const std::string h8 = "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }\n";
  EXPECT_NE(error_of("b.npy", std::string("\x93NUMPY\x01\x00", 8) + char(h8.size()) + char(0) + h8 + "12345678")
                .find("dtype '<f8' is not '<f4' (float32), '<i8' (int64) or '<i4' (int32)"),
            std::string::npos);
  const std::string h4 = "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }\n";
  EXPECT_NE(error_of("c.npy", std::string("\x93NUMPY\x01\x00", 8) + char(h4.size()) + char(0) + h4 + "1234")
                .find("shape needs 12 data bytes, the file has 4"),
            std::string::npos);
  EXPECT_NE(error_of("d.pb", "\xff\xff\xff").find("not a serialized onnx.TensorProto"), std::string::npos);
  EXPECT_THROW(npu::compiler::read_tensor_file(dir + "/missing.pb"), npu::ConfigError);
}

TEST(DataTool, SimulateWithDataWritesOutputsAndKeepsTheTiming) {
  const std::string dir = npu::test::fresh_dir("sim-data");
  const std::string hw = fp32_config(dir);
  // tiny_convnet's input [1,3,32,32] as a .npy file of 0.01 * (i % 100).
  RefTensor x;
  x.shape = {1, 3, 32, 32};
  for (int i = 0; i < 3072; ++i) x.f.push_back(0.01f * float(i % 100));
  npu::compiler::write_npy(dir + "/x.npy", x);
  const auto with = npu::test::run_npu({"simulate", "--model", "tests/data/tiny_convnet.onnx", "--hw", hw, "--out",
                                        dir + "/with", "--with-data", "--input-data", "input=" + dir + "/x.npy"});
  ASSERT_EQ(with.status, 0) << with.output;
  EXPECT_NE(with.output.find("outputs/output.npy"), std::string::npos) << with.output;
  const RefTensor y = npu::compiler::read_tensor_file(dir + "/with/outputs/output.npy");
  EXPECT_EQ(y.shape, (std::vector<std::int64_t>{1, 10}));
  const RefTensor ypb = npu::compiler::read_tensor_file(dir + "/with/outputs/output.pb");
  EXPECT_EQ(ypb.f, y.f);
  const auto without = npu::test::run_npu(
      {"simulate", "--model", "tests/data/tiny_convnet.onnx", "--hw", hw, "--out", dir + "/without", "-q"});
  ASSERT_EQ(without.status, 0) << without.output;
  const auto a = npu::test::read_json(dir + "/with/run_summary.json");
  const auto b = npu::test::read_json(dir + "/without/run_summary.json");
  for (const char* k : {"cycles", "ddr_read_bytes", "ddr_write_bytes", "macs", "instructions"}) EXPECT_EQ(a.at(k), b.at(k)) << k;
  EXPECT_FALSE(std::ifstream(dir + "/without/outputs/output.npy").good());
}

TEST(DataTool, BadDataRequestsExitOneWithTheFix) {
  const std::string dir = npu::test::fresh_dir("sim-data-bad");
  const std::string hw = fp32_config(dir);
  RefTensor x;
  x.shape = {5};
  x.f = {1, 2, 3, 4, 5};
  npu::compiler::write_npy(dir + "/five.npy", x);
  const std::string model = "tests/data/tiny_convnet.onnx";
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"--hw", hw, "--input-data", dir + "/five.npy"}, "add --with-data"},
      {{"--hw", hw, "--with-data", "--input-data", dir + "/five.npy"}, "5 values, graph input 'input' has 3072"},
      {{"--hw", hw, "--with-data", "--input-data", "nope=" + dir + "/five.npy"}, "'nope' is not a graph input"},
      {{"--hw", hw, "--with-data", "--input-data", dir + "/absent.npy"}, "cannot open the tensor file"},
      // The int8 preset with an unquantised model: int8 execution needs the model's scales.
      {{"--hw", "configs/edge-npu-ddr4.yaml", "--with-data"},
       "the program's dtype is int8 but the model carries no quantisation (no tensor has scale and zero point): "
       "quantise it first"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args{"simulate", "--model", model, "--out", dir + "/run"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const auto r = npu::test::run_npu(args);
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << r.output;
  }
}

// Acceptance (issue 10): MobileNetV2 (BN unfolded in the file) with its reference input, fp32,
// every built-in strategy within 1e-4 of the torch output (max |err| / max |ref|).
TEST(DataTool, SharedMobileNetV2EveryStrategyMatchesTheTorchOutput) {
  const std::string models = npu::test::shared_path("models");
  NPU_REQUIRE_SHARED_OR_SKIP(models + "/mobilenet_v2_bn.onnx");
  NPU_REQUIRE_SHARED_OR_SKIP(models + "/mobilenet_v2_bn_data/test_data_set_0/output_0.pb");
  const std::string dir = npu::test::fresh_dir("mnv2-data");
  const std::string hw = fp32_config(dir);
  const std::string data = models + "/mobilenet_v2_bn_data/test_data_set_0/";
  const RefTensor ref = npu::compiler::read_tensor_file(data + "output_0.pb");
  for (const char* s : {"none", "conv-bn", "conv-act", "conv-bn-act", "residual"}) {
    const auto r = npu::test::run_npu({"simulate", "--model", models + "/mobilenet_v2_bn.onnx", "--hw", hw,
                                       "--strategy", s, "--out", dir + "/" + s, "--with-data", "--input-data",
                                       data + "input_0.pb", "-q"});
    ASSERT_EQ(r.status, 0) << r.output;
    const RefTensor y = npu::compiler::read_tensor_file(dir + "/" + s + "/outputs/output.npy");
    ASSERT_EQ(y.f.size(), ref.f.size());
    double err = 0, mx = 0;
    for (std::size_t i = 0; i < y.f.size(); ++i) {
      err = std::max(err, std::fabs(double(y.f[i]) - ref.f[i]));
      mx = std::max(mx, std::fabs(double(ref.f[i])));
    }
    EXPECT_LE(err / mx, 1e-4) << "strategy " << s;
  }
}

}  // namespace
