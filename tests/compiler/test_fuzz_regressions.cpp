// Bad ONNX inputs found while fuzzing the front-end (tests/fuzz/fuzz_onnx.cpp,
// docs/validation.md "Fuzzing"), each reduced to the part that mattered, with the exact
// error the importer now gives. Models are built with the protobuf API (test_onnx_util.hpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "npu/compiler/frontend/model_loader.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "test_onnx_util.hpp"

namespace npu::compiler {
namespace {

using npu::test::OnnxModel;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

// x + b, b (2 floats) stored outside the model with the given external_data entries.
OnnxModel external_model(const std::vector<std::pair<std::string, std::string>>& entries) {
  OnnxModel m(13);
  m.input("x", {1, 2});
  auto* t = m.graph().add_initializer();
  t->set_name("b");
  t->set_data_type(onnx::TensorProto_DataType_FLOAT);
  t->add_dims(2);
  t->set_data_location(onnx::TensorProto_DataLocation_EXTERNAL);
  for (const auto& [k, v] : entries) {
    auto* kv = t->add_external_data();
    kv->set_key(k);
    kv->set_value(v);
  }
  m.node("Add", "a", {"x", "b"}, {"y"});
  m.output("y");
  return m;
}

// The model and an 8-byte data file `w.bin` in a fresh folder; returns the model's path.
std::string write_with_data(const OnnxModel& m, const std::string& folder) {
  const std::filesystem::path dir = std::filesystem::path(NPU_BINARY_DIR) / "fuzz_regressions" / folder;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "sub");
  std::ofstream(dir / "w.bin", std::ios::binary) << std::string(8, '\0');
  const std::string path = (dir / "model.onnx").string();
  std::ofstream(path, std::ios::binary) << m.bytes();
  return path;
}

// 'offset' and 'length' were read with std::stoll: a non-number escaped as
// std::invalid_argument (the tool's "internal error"), not a ConfigError naming the tensor.
TEST(FuzzRegression, OnnxExternalDataOffsetNotANumber) {
  const std::string path = write_with_data(external_model({{"location", "w.bin"}, {"offset", "x8"}}), "offset");
  EXPECT_EQ(error_of([&] { load_model(path); }),
            path + ": error: tensor 'b': external data offset 'x8' is not a non-negative integer; the model is "
                   "corrupt: re-save it with its external data");
}

TEST(FuzzRegression, OnnxExternalDataLengthOutOfRange) {
  const std::string path =
      write_with_data(external_model({{"location", "w.bin"}, {"length", "99999999999999999999"}}), "length");
  EXPECT_EQ(error_of([&] { load_model(path); }),
            path + ": error: tensor 'b': external data length '99999999999999999999' is not a non-negative integer; "
                   "the model is corrupt: re-save it with its external data");
}

// offset + length overflowed int64 (undefined behaviour; UBSan) before the range check.
TEST(FuzzRegression, OnnxExternalDataRangeOverflow) {
  const std::string path = write_with_data(
      external_model({{"location", "w.bin"}, {"offset", "4"}, {"length", "9223372036854775807"}}), "overflow");
  const std::string data = (std::filesystem::path(path).parent_path() / "w.bin").string();
  EXPECT_EQ(error_of([&] { load_model(path); }),
            path + ": error: tensor 'b': external data range [4, 9223372036854775811) lies outside '" + data +
                "' (8 bytes); the external data file does not belong to this model");
}

// A folder as the location opened (std::ifstream opens folders on Linux) and its "size" made
// a std::string of 2^63 bytes: std::length_error / std::bad_alloc instead of an error.
TEST(FuzzRegression, OnnxExternalDataLocationIsAFolder) {
  const std::string path = write_with_data(external_model({{"location", "sub"}}), "folder");
  const std::string data = (std::filesystem::path(path).parent_path() / "sub").string();
  EXPECT_EQ(error_of([&] { load_model(path); }),
            path + ": error: tensor 'b' keeps its data in external file '" + data +
                "', which is not a regular file; put the data file beside the model or save the model with all "
                "tensors inside (onnx.save_model(m, path, save_as_external_data=False))");
}

// fuzz_onnx (UBSan: signed overflow in Tensor::elements()): an initializer whose dims
// multiply past 2^63, here 2^32 x 2^32 = 2^64.
TEST(FuzzRegression, OnnxConstantDimsOverflow) {
  OnnxModel m(13);
  m.input("x", {1, 2});
  auto* t = m.graph().add_initializer();
  t->set_name("b");
  t->set_data_type(onnx::TensorProto_DataType_FLOAT);
  t->add_dims(std::int64_t(1) << 32);
  t->add_dims(std::int64_t(1) << 32);
  m.node("Add", "a", {"x", "b"}, {"y"});
  m.output("y");
  EXPECT_EQ(error_of([&] { load_model_bytes(m.bytes(), "fuzz.onnx"); }),
            "fuzz.onnx: error: constant tensor 'b' has dimensions whose product overflows a 64-bit element count; "
            "the file is corrupt, re-export it");
}

}  // namespace
}  // namespace npu::compiler
