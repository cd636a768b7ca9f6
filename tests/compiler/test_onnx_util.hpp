// Hand-made ONNX models for the front-end tests, written with the ONNX protobuf API so no
// binary files are committed. npu_compiler links ONNX privately, so the compile
// definitions of Debian's onnx CMake target are repeated here.
#pragma once

#ifndef ONNX_NAMESPACE
#define ONNX_NAMESPACE onnx
#endif
#ifndef ONNX_ML
#define ONNX_ML 1
#endif
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <vector>

namespace npu::test {

class OnnxModel {
 public:
  explicit OnnxModel(std::int64_t opset, std::int64_t ir_version = 7) {
    m_.set_ir_version(ir_version);
    m_.set_producer_name("npu-sim tests");
    auto* o = m_.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
    m_.mutable_graph()->set_name("test_graph");
  }

  onnx::GraphProto& graph() { return *m_.mutable_graph(); }
  onnx::ModelProto& model() { return m_; }

  /// Graph input; a negative dim becomes a dim_param named `param`.
  void input(const std::string& name, std::vector<std::int64_t> dims,
             const std::string& param = "N", int elem = onnx::TensorProto_DataType_FLOAT) {
    auto* vi = graph().add_input();
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elem);
    auto* shape = tt->mutable_shape();
    for (auto d : dims) {
      auto* dim = shape->add_dim();
      if (d >= 0) dim->set_dim_value(d);
      else dim->set_dim_param(param);
    }
  }

  void output(const std::string& name) { graph().add_output()->set_name(name); }

  static void fill_float(onnx::TensorProto& t, const std::string& name,
                         std::vector<std::int64_t> dims, const std::vector<float>& values, bool raw) {
    t.set_name(name);
    t.set_data_type(onnx::TensorProto_DataType_FLOAT);
    for (auto d : dims) t.add_dims(d);
    if (raw) t.set_raw_data(std::string(reinterpret_cast<const char*>(values.data()), values.size() * 4));
    else for (float v : values) t.add_float_data(v);
  }
  static void fill_int64(onnx::TensorProto& t, const std::string& name,
                         std::vector<std::int64_t> dims, const std::vector<std::int64_t>& values, bool raw) {
    t.set_name(name);
    t.set_data_type(onnx::TensorProto_DataType_INT64);
    for (auto d : dims) t.add_dims(d);
    if (raw) t.set_raw_data(std::string(reinterpret_cast<const char*>(values.data()), values.size() * 8));
    else for (auto v : values) t.add_int64_data(v);
  }

  void init_float(const std::string& name, std::vector<std::int64_t> dims,
                  const std::vector<float>& values, bool raw = true) {
    fill_float(*graph().add_initializer(), name, std::move(dims), values, raw);
  }
  /// A float initializer of `dims` filled with 0.5 (values do not matter for shapes).
  void weight(const std::string& name, std::vector<std::int64_t> dims) {
    std::int64_t n = 1;
    for (auto d : dims) n *= d;
    init_float(name, std::move(dims), std::vector<float>(static_cast<std::size_t>(n), 0.5f));
  }
  void init_int64(const std::string& name, std::vector<std::int64_t> dims,
                  const std::vector<std::int64_t>& values, bool raw = true) {
    fill_int64(*graph().add_initializer(), name, std::move(dims), values, raw);
  }

  onnx::NodeProto& node(const std::string& op, const std::string& name,
                        std::vector<std::string> inputs, std::vector<std::string> outputs) {
    auto* n = graph().add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (auto& i : inputs) n->add_input(i);
    for (auto& o : outputs) n->add_output(o);
    return *n;
  }

  static void attr_i(onnx::NodeProto& n, const std::string& key, std::int64_t v) {
    auto* a = n.add_attribute();
    a->set_name(key);
    a->set_type(onnx::AttributeProto_AttributeType_INT);
    a->set_i(v);
  }
  static void attr_f(onnx::NodeProto& n, const std::string& key, float v) {
    auto* a = n.add_attribute();
    a->set_name(key);
    a->set_type(onnx::AttributeProto_AttributeType_FLOAT);
    a->set_f(v);
  }
  static void attr_s(onnx::NodeProto& n, const std::string& key, const std::string& v) {
    auto* a = n.add_attribute();
    a->set_name(key);
    a->set_type(onnx::AttributeProto_AttributeType_STRING);
    a->set_s(v);
  }
  static void attr_ints(onnx::NodeProto& n, const std::string& key, std::vector<std::int64_t> v) {
    auto* a = n.add_attribute();
    a->set_name(key);
    a->set_type(onnx::AttributeProto_AttributeType_INTS);
    for (auto x : v) a->add_ints(x);
  }
  static void attr_floats(onnx::NodeProto& n, const std::string& key, std::vector<float> v) {
    auto* a = n.add_attribute();
    a->set_name(key);
    a->set_type(onnx::AttributeProto_AttributeType_FLOATS);
    for (auto x : v) a->add_floats(x);
  }

  /// Constant node with a float tensor `value`.
  void constant_float(const std::string& out, std::vector<std::int64_t> dims,
                      const std::vector<float>& values) {
    auto& n = node("Constant", out + "_node", {}, {out});
    auto* a = n.add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto_AttributeType_TENSOR);
    fill_float(*a->mutable_t(), "", std::move(dims), values, true);
  }
  void constant_int64(const std::string& out, std::vector<std::int64_t> dims,
                      const std::vector<std::int64_t>& values) {
    auto& n = node("Constant", out + "_node", {}, {out});
    auto* a = n.add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto_AttributeType_TENSOR);
    fill_int64(*a->mutable_t(), "", std::move(dims), values, true);
  }

  std::string bytes() const { return m_.SerializeAsString(); }

  /// Writes the model to a fresh file under the temp directory and returns its path.
  std::string write(const std::string& file_name) const { return write_bytes(file_name, bytes()); }

  static std::string write_bytes(const std::string& file_name, const std::string& data) {
    // One folder per process (ctest runs test cases in parallel processes), removed when
    // the process exits.
    struct TempDir {
      std::filesystem::path path = std::filesystem::temp_directory_path() /
                                   ("npu_fe_tests_" + std::to_string(::getpid()));
      ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
      }
    };
    static const TempDir temp;
    const auto& dir = temp.path;
    std::filesystem::create_directories(dir);
    const auto path = (dir / file_name).string();
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(data.data(), static_cast<std::streamsize>(data.size()));
    return path;
  }

 private:
  onnx::ModelProto m_;
};

/// x[1,8] -> Relu -> y (opset 13), written to DIR/relu.onnx; returns its path.
inline std::string write_relu_model(const std::string& dir) {
  OnnxModel m(13);
  m.input("x", {1, 8});
  m.node("Relu", "relu", {"x"}, {"y"});
  m.output("y");
  const std::string path = dir + "/relu.onnx";
  std::ofstream(path, std::ios::binary) << m.bytes();
  return path;
}

}  // namespace npu::test
