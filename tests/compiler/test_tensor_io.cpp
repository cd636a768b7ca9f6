// Tensor files (tensor_io.hpp): TensorProto .pb read/write (checked against protobuf-built
// files and the shared models' reference data) and .npy (bytes derived from the format
// description, and read back by NumPy where /usr/bin/python3 has it).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "npu/compiler/frontend/tensor_io.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "test_onnx_util.hpp"
#include "shared_data.hpp"
#include "tool_runner.hpp"

namespace npu::compiler {
namespace {

namespace fs = std::filesystem;

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary);
  f << bytes;
}

TEST(TensorIo, ReadsTensorProtoWrittenByProtobufTypedAndRaw) {
  const std::string dir = test::fresh_dir("tensor_io_read");
  // float_data (typed) and raw_data forms of the same 2x2 tensor.
  for (const bool raw : {false, true}) {
    onnx::TensorProto p;
    test::OnnxModel::fill_float(p, "x", {2, 2}, {1.5f, -2, 0, 4}, raw);
    write_bytes(dir + "/f.pb", p.SerializeAsString());
    std::string name;
    const RefTensor t = read_tensor_pb(dir + "/f.pb", &name);
    EXPECT_EQ(name, "x");
    EXPECT_TRUE(t.is_float());
    EXPECT_EQ(t.shape, (std::vector<std::int64_t>{2, 2}));
    EXPECT_EQ(t.f, (std::vector<float>{1.5f, -2, 0, 4}));
  }
  onnx::TensorProto p;
  test::OnnxModel::fill_int64(p, "shape", {3}, {1, -1, 7}, true);
  write_bytes(dir + "/i.pb", p.SerializeAsString());
  const RefTensor t = read_tensor_pb(dir + "/i.pb");
  EXPECT_EQ(t.type, ElemType::Int64);
  EXPECT_EQ(t.i, (std::vector<std::int64_t>{1, -1, 7}));
  fs::remove_all(dir);
}

TEST(TensorIo, WriteThenReadRoundTripsFloatAndIntegerTensors) {
  const std::string dir = test::fresh_dir("tensor_io_roundtrip");
  RefTensor f;
  f.shape = {1, 3};
  f.f = {0.25f, -1e30f, 3};
  write_tensor_pb(dir + "/f.pb", f, "out");
  std::string name;
  const RefTensor f2 = read_tensor_pb(dir + "/f.pb", &name);
  EXPECT_EQ(name, "out");
  EXPECT_EQ(f2.shape, f.shape);
  EXPECT_EQ(f2.f, f.f);
  // And protobuf itself reads what we wrote as a FLOAT tensor with raw_data.
  onnx::TensorProto p;
  std::ifstream in(dir + "/f.pb", std::ios::binary);
  ASSERT_TRUE(p.ParseFromIstream(&in));
  EXPECT_EQ(p.data_type(), onnx::TensorProto_DataType_FLOAT);
  EXPECT_EQ(p.raw_data().size(), 12u);  // 3 floats x 4 bytes
  RefTensor i;
  i.type = ElemType::Int64;
  i.shape = {2};
  i.i = {-5, 1LL << 40};
  write_tensor_pb(dir + "/i.pb", i, "idx");
  EXPECT_EQ(read_tensor_pb(dir + "/i.pb").i, i.i);
  fs::remove_all(dir);
}

TEST(TensorIo, ReadsTheSharedModelsReferenceData) {
  const std::string pb = npu::test::shared_path("models/mobilenet_v2_bn_data/test_data_set_0/input_0.pb");
  NPU_REQUIRE_SHARED_OR_SKIP(pb);
  const RefTensor t = read_tensor_pb(pb);
  // The README: input 1x3x224x224 fp32 (602,112 bytes = 150,528 floats).
  EXPECT_EQ(t.shape, (std::vector<std::int64_t>{1, 3, 224, 224}));
  EXPECT_EQ(t.f.size(), 150528u);
}

TEST(TensorIo, BadFilesAreErrorsNamingTheFile) {
  const std::string dir = test::fresh_dir("tensor_io_bad");
  auto message = [](const std::string& path) {
    try {
      read_tensor_pb(path);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(dir + "/missing.pb").find(dir + "/missing.pb: error: no such file"), std::string::npos);
  write_bytes(dir + "/empty.pb", "");
  EXPECT_NE(message(dir + "/empty.pb").find("no data type"), std::string::npos) << message(dir + "/empty.pb");
  write_bytes(dir + "/junk.pb", std::string("\xff\xff\xff\xff\xff", 5));
  EXPECT_NE(message(dir + "/junk.pb").find("not a serialized onnx.TensorProto"), std::string::npos) << message(dir + "/junk.pb");
  // Dims 2x2 but 3 values.
  onnx::TensorProto p;
  test::OnnxModel::fill_float(p, "x", {2, 2}, {1, 2, 3}, true);
  write_bytes(dir + "/short.pb", p.SerializeAsString());
  EXPECT_NE(message(dir + "/short.pb").find("holds 3 values but its shape has 4 elements"), std::string::npos)
      << message(dir + "/short.pb");
  RefTensor t = RefTensor::zeros({2});
  EXPECT_THROW(write_tensor_pb(dir + "/no/such/folder/x.pb", t, "x"), ConfigError);
  EXPECT_THROW(write_npy(dir + "/no/such/folder/x.npy", t), ConfigError);
  fs::remove_all(dir);
}

TEST(TensorIo, NpyHeaderFollowsTheFormatAndNumpyReadsIt) {
  const std::string dir = test::fresh_dir("tensor_io_npy");
  RefTensor t;
  t.shape = {2, 3};
  t.f = {0, 1, 2, 3, 4.5f, -6};
  write_npy(dir + "/a.npy", t);
  const std::string bytes = test::read_file(dir + "/a.npy");
  // Format 1.0: "\x93NUMPY" 1 0, uint16 LE header length, header, data. The dict
  // "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }" is 59 characters;
  // 10 + 59 + 1 ('\n') = 70, padded with spaces to 128: header length 118 (0x76).
  ASSERT_EQ(bytes.size(), 128u + 6 * 4);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_EQ(bytes[8], '\x76');
  EXPECT_EQ(bytes[9], '\0');
  EXPECT_EQ(bytes.substr(10, 59), "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }");
  EXPECT_EQ(bytes.substr(69, 58), std::string(58, ' '));
  EXPECT_EQ(bytes[127], '\n');
  float last;
  std::memcpy(&last, bytes.data() + 128 + 5 * 4, 4);
  EXPECT_EQ(last, -6.0f);
  // A 1-D integer tensor: shape "(3,)" (Python's one-tuple), descr '<i8'.
  RefTensor i;
  i.type = ElemType::Int64;
  i.shape = {3};
  i.i = {7, -8, 9};
  write_npy(dir + "/i.npy", i);
  EXPECT_EQ(test::read_file(dir + "/i.npy").substr(10, 57), "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }");

  // Independent reader: NumPy (Debian python3-numpy, pulled in by python3-pandas).
  if (test::run_shell("/usr/bin/python3 -c 'import numpy'").status != 0)
    GTEST_SKIP() << "/usr/bin/python3 has no numpy: the NumPy read-back is skipped";
  const test::ToolResult r = test::run_shell("/usr/bin/python3 -c \"import numpy as n; a = n.load('" + dir +
                                             "/a.npy'); b = n.load('" + dir +
                                             "/i.npy'); print(a.dtype, a.shape, a.tolist(), b.dtype, b.tolist())\"");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output, "float32 (2, 3) [[0.0, 1.0, 2.0], [3.0, 4.5, -6.0]] int64 [7, -8, 9]\n");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace npu::compiler
