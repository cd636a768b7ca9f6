// Tensor files (tensor_io.hpp): TensorProto via libonnx's protobuf classes, .npy by the
// documented v1.0 format.
#include "npu/compiler/tensor_io.hpp"

#include <onnx/onnx_pb.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "npu/compiler/onnx_import.hpp"
#include "npu/isa/hw_config.hpp"

namespace npu::compiler {

namespace fs = std::filesystem;

namespace {

void check_data(const RefTensor& t, const std::string& path) {
  const std::size_t have = t.is_float() ? t.f.size() : t.i.size();
  if (have != static_cast<std::size_t>(t.elements()))
    throw ConfigError(path + ": error: cannot write a tensor of " + std::to_string(have) + " values with a shape of " +
                      std::to_string(t.elements()) + " elements");
}

std::ofstream open_out(const std::string& path) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw ConfigError(path + ": error: cannot open for writing; check that the folder exists and is writable");
  return f;
}

void close_out(std::ofstream& f, const std::string& path) {
  f.close();
  if (!f) throw ConfigError(path + ": error: writing failed (disk full?)");
}

}  // namespace

RefTensor read_tensor_pb(const std::string& path, std::string* name) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    throw ConfigError(path + ": error: no such file (or not a regular file); give the path of a TensorProto .pb file");
  std::ifstream f(path, std::ios::binary);
  if (!f) throw ConfigError(path + ": error: cannot open the file; check its permissions");
  std::ostringstream ss;
  ss << f.rdbuf();
  const Tensor t = import_tensor_proto(ss.str(), path, fs::path(path).parent_path().string());
  if (name) *name = t.name;
  RefTensor r;
  r.shape = t.shape;
  if (t.type == ElemType::Float32 || t.type == ElemType::Float16) {
    r.f = t.float_data;
  } else {
    r.type = t.type;
    r.i = t.int_data;
  }
  return r;
}

void write_tensor_pb(const std::string& path, const RefTensor& t, const std::string& name) {
  check_data(t, path);
  onnx::TensorProto p;
  p.set_name(name);
  for (std::int64_t d : t.shape) p.add_dims(d);
  std::string raw;
  if (t.is_float()) {
    p.set_data_type(onnx::TensorProto_DataType_FLOAT);
    raw.resize(t.f.size() * sizeof(float));
    if (!raw.empty()) std::memcpy(raw.data(), t.f.data(), raw.size());  // little-endian host (x86/ARM)
  } else if (t.type == ElemType::Bool) {
    p.set_data_type(onnx::TensorProto_DataType_BOOL);
    for (std::int64_t v : t.i) raw.push_back(v != 0 ? 1 : 0);
  } else {
    p.set_data_type(onnx::TensorProto_DataType_INT64);
    raw.resize(t.i.size() * sizeof(std::int64_t));
    if (!raw.empty()) std::memcpy(raw.data(), t.i.data(), raw.size());
  }
  p.set_raw_data(raw);
  std::ofstream f = open_out(path);
  if (!p.SerializeToOstream(&f)) throw ConfigError(path + ": error: writing the TensorProto failed (disk full?)");
  close_out(f, path);
}

void write_npy(const std::string& path, const RefTensor& t) {
  check_data(t, path);
  const char* descr = t.is_float() ? "<f4" : t.type == ElemType::Bool ? "|b1" : "<i8";
  std::string shape = "(";
  for (std::size_t d = 0; d < t.shape.size(); ++d) shape += std::to_string(t.shape[d]) + (t.shape.size() == 1 ? "," : d + 1 < t.shape.size() ? ", " : "");
  shape += ")";
  std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // magic (6) + version (2) + header length (2) + header + '\n' is a multiple of 64.
  const std::size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream f = open_out(path);
  f.write("\x93NUMPY\x01\x00", 8);
  const auto len = static_cast<std::uint16_t>(header.size());
  const char len_le[2] = {static_cast<char>(len & 0xff), static_cast<char>(len >> 8)};
  f.write(len_le, 2);
  f << header;
  if (t.is_float()) {
    f.write(reinterpret_cast<const char*>(t.f.data()), static_cast<std::streamsize>(t.f.size() * sizeof(float)));
  } else if (t.type == ElemType::Bool) {
    for (std::int64_t v : t.i) f.put(v != 0 ? 1 : 0);
  } else {
    f.write(reinterpret_cast<const char*>(t.i.data()), static_cast<std::streamsize>(t.i.size() * sizeof(std::int64_t)));
  }
  close_out(f, path);
}

}  // namespace npu::compiler
