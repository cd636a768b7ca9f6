// Tensor files (tensor_io.hpp): TensorProto via libonnx's protobuf classes, .npy by the
// documented v1.0 format.
#include "npu/compiler/frontend/tensor_io.hpp"

#include <onnx/onnx_pb.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "npu/compiler/frontend/onnx/onnx_import.hpp"
#include "npu/hw_config/hw_config.hpp"

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

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// A .npy header's dtype: '<f4' float32, '<i8' int64, '<i4' int32 (little-endian, as numpy
/// writes them on x86/ARM); bytes 0 for any other (descr says which).
struct NpyDtype {
  std::string descr;
  ElemType type = ElemType::Float32;
  std::uint64_t bytes = 0;
};

NpyDtype npy_dtype(const std::string& header) {
  NpyDtype d;
  const std::size_t key = header.find("'descr'");
  const std::size_t q0 = key == std::string::npos ? key : header.find('\'', key + 7);
  const std::size_t q1 = q0 == std::string::npos ? q0 : header.find('\'', q0 + 1);
  if (q1 == std::string::npos) return d;
  d.descr = header.substr(q0 + 1, q1 - q0 - 1);
  if (d.descr == "<f4") d.type = ElemType::Float32, d.bytes = 4;
  if (d.descr == "<i8") d.type = ElemType::Int64, d.bytes = 8;
  if (d.descr == "<i4") d.type = ElemType::Int32, d.bytes = 4;
  return d;
}

// The n values at `p` into t.f (float32) or t.i (int64, int32 widened).
void read_npy_values(const char* p, std::uint64_t n, RefTensor& t) {
  if (t.type == ElemType::Float32) {
    t.f.resize(n);
    if (n) std::memcpy(t.f.data(), p, n * 4);
    return;
  }
  t.i.resize(n);
  if (t.type == ElemType::Int64) {
    if (n) std::memcpy(t.i.data(), p, n * 8);
    return;
  }
  for (std::uint64_t k = 0; k < n; ++k) {
    std::int32_t v = 0;
    std::memcpy(&v, p + 4 * k, 4);
    t.i[k] = v;
  }
}

/// .npy (NEP 1): magic, version, header length (2 bytes in v1, 4 in v2/v3), a dict header.
RefTensor read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path + ": error: cannot open the tensor file; check the path");
  const std::string b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto bad = [&](const std::string& why) {
    return ConfigError(path + ": error: not a .npy file npu reads: " + why +
                       "\n  fix: save it with numpy.save(path, array.astype('<f4')) for a float input, "
                       "array.astype('<i8') for an integer one (token ids)");
  };
  if (b.size() < 10 || b.compare(0, 6, "\x93NUMPY") != 0) throw bad("no \\x93NUMPY magic");
  const int major = (unsigned char)b[6];
  std::size_t hlen = 0, off = 0;
  if (major == 1) {
    hlen = (unsigned char)b[8] | (std::size_t((unsigned char)b[9]) << 8);
    off = 10;
  } else if (major == 2 || major == 3) {
    if (b.size() < 12) throw bad("truncated header");
    for (int i = 0; i < 4; ++i) hlen |= std::size_t((unsigned char)b[8 + std::size_t(i)]) << (8 * i);
    off = 12;
  } else {
    throw bad("format version " + std::to_string(major));
  }
  if (hlen > b.size() - off) throw bad("truncated header");
  const std::string h = b.substr(off, hlen);
  const NpyDtype dt = npy_dtype(h);
  if (dt.bytes == 0)
    throw bad("dtype '" + dt.descr + "' is not '<f4' (float32), '<i8' (int64) or '<i4' (int32)");
  if (h.find("True") != std::string::npos) throw bad("fortran_order is True");
  const std::size_t s0 = h.find("'shape'");
  const std::size_t p0 = s0 == std::string::npos ? s0 : h.find('(', s0);
  const std::size_t p1 = p0 == std::string::npos ? p0 : h.find(')', p0);
  if (p1 == std::string::npos) throw bad("no shape in the header");
  RefTensor t;
  std::stringstream dims(h.substr(p0 + 1, p1 - p0 - 1));
  const std::size_t data = off + hlen;
  std::uint64_t n = 1;
  for (std::string d; std::getline(dims, d, ',');) {
    const auto first = d.find_first_not_of(' ');
    if (first == std::string::npos) continue;
    std::size_t used = 0;
    long long v = -1;
    try {
      v = std::stoll(d, &used);
    } catch (const std::exception&) {
    }
    if (v < 0 || d.find_first_not_of(' ', used) != std::string::npos) throw bad("shape entry '" + d + "'");
    if (v > 0 && n > (b.size() - data) / std::uint64_t(v)) throw bad("the shape needs more data than the file has");
    n *= std::uint64_t(v);
    t.shape.push_back(v);
  }
  if (b.size() - data != n * dt.bytes)
    throw bad("shape needs " + std::to_string(n * dt.bytes) + " data bytes, the file has " +
              std::to_string(b.size() - data));
  t.type = dt.type;
  read_npy_values(b.data() + data, n, t);
  return t;
}

}  // namespace

RefTensor read_tensor_file(const std::string& path, std::string* name) {
  if (!ends_with(path, ".npy")) return read_tensor_pb(path, name);
  if (name) name->clear();
  return read_npy(path);
}

RefTensor read_tensor_pb(const std::string& path, std::string* name) {
  std::error_code ec;
  if (fs::is_directory(path, ec))
    throw ConfigError(path + ": error: is a folder; give one tensor file (.npy or TensorProto .pb) per input");
  if (!fs::is_regular_file(path, ec))
    throw ConfigError(path + ": error: no such file (or not a regular file); give the path of a .npy or TensorProto "
                      ".pb file");
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

namespace {

std::string dims_text(const std::vector<std::int64_t>& shape) {
  std::string s;
  for (std::int64_t d : shape) s += (s.empty() ? "" : ",") + std::to_string(d);
  return "[" + s + "]";
}

std::vector<std::int64_t> without_ones(const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> out;
  for (std::int64_t d : shape)
    if (d != 1) out.push_back(d);
  return out;
}

}  // namespace

void check_input_layout(const std::vector<std::int64_t>& file_shape, const Tensor& input, const std::string& path) {
  if (file_shape.size() <= 1 || without_ones(file_shape) == without_ones(input.shape)) return;
  throw ConfigError(path + ": error: the file's shape " + dims_text(file_shape) + " is not graph input '" + input.name +
                    "''s " + dims_text(input.shape) + "; its values would be read in the input's order (a permuted "
                    "layout such as NHWC for NCHW gives a wrong input)\n  fix: transpose the array to " +
                    dims_text(input.shape) + " (NumPy: a.transpose(...)), or save it flattened to 1-D if its order is "
                    "already the input's");
}

}  // namespace npu::compiler
