#include "npu/compiler/tensor_io.hpp"

#include <onnx/onnx_pb.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "npu/isa/hw_config.hpp"

namespace npu::compiler {

namespace {

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw ConfigError(path + ": error: cannot open the tensor file");
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f || !f.write(bytes.data(), std::streamsize(bytes.size())) || !f.flush())
    throw ConfigError(path + ": error: cannot write the tensor file");
}

std::uint64_t elements(const std::vector<std::int64_t>& shape) {
  std::uint64_t n = 1;
  for (std::int64_t d : shape) n *= std::uint64_t(d < 0 ? 0 : d);
  return n;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

HostTensor read_npy(const std::string& path, const std::string& b) {
  auto bad = [&](const std::string& why) {
    return ConfigError(path + ": error: not a float32 .npy file: " + why +
                       "\n  fix: save it with numpy.save(path, array.astype('<f4'))");
  };
  if (b.size() < 10 || b.compare(0, 6, "\x93NUMPY") != 0) throw bad("no \\x93NUMPY magic");
  const int major = (unsigned char)b[6];
  std::size_t hlen = 0, off = 0;
  if (major == 1) {
    hlen = (unsigned char)b[8] | (std::size_t((unsigned char)b[9]) << 8);
    off = 10;
  } else if (major == 2 || major == 3) {
    if (b.size() < 12) throw bad("truncated header");
    hlen = 0;
    for (int i = 0; i < 4; ++i) hlen |= std::size_t((unsigned char)b[8 + std::size_t(i)]) << (8 * i);
    off = 12;
  } else {
    throw bad("format version " + std::to_string(major));
  }
  if (off + hlen > b.size()) throw bad("truncated header");
  const std::string h = b.substr(off, hlen);
  if (h.find("'descr': '<f4'") == std::string::npos && h.find("'descr':'<f4'") == std::string::npos)
    throw bad("dtype is not '<f4' (header " + h.substr(0, h.find('\n')) + ")");
  if (h.find("True") != std::string::npos) throw bad("fortran_order is True");
  const std::size_t s0 = h.find("'shape'");
  const std::size_t p0 = s0 == std::string::npos ? s0 : h.find('(', s0), p1 = p0 == std::string::npos ? p0 : h.find(')', p0);
  if (p1 == std::string::npos) throw bad("no shape in the header");
  HostTensor t;
  std::stringstream dims(h.substr(p0 + 1, p1 - p0 - 1));
  for (std::string d; std::getline(dims, d, ',');) {
    if (d.find_first_not_of(" ") == std::string::npos) continue;
    try {
      t.shape.push_back(std::stoll(d));
    } catch (const std::exception&) {
      throw bad("shape entry '" + d + "'");
    }
  }
  const std::uint64_t n = elements(t.shape);
  const std::size_t data = off + hlen;
  if (b.size() - data != n * 4)
    throw bad("shape needs " + std::to_string(n * 4) + " data bytes, the file has " + std::to_string(b.size() - data));
  t.values.resize(n);
  std::memcpy(t.values.data(), b.data() + data, n * 4);
  return t;
}

}  // namespace

HostTensor read_tensor_file(const std::string& path) {
  const std::string b = slurp(path);
  if (ends_with(path, ".npy")) return read_npy(path, b);
  onnx::TensorProto p;
  if (!p.ParseFromString(b))
    throw ConfigError(path + ": error: not a serialized onnx.TensorProto (and not named .npy)");
  HostTensor t;
  t.name = p.name();
  for (auto d : p.dims()) t.shape.push_back(d);
  const std::uint64_t n = elements(t.shape);
  if (p.data_type() == onnx::TensorProto_DataType_FLOAT) {
    if (p.has_raw_data()) {
      if (p.raw_data().size() != n * 4)
        throw ConfigError(path + ": error: raw_data has " + std::to_string(p.raw_data().size()) + " bytes, dims need " +
                          std::to_string(n * 4));
      t.values.resize(n);
      std::memcpy(t.values.data(), p.raw_data().data(), n * 4);
    } else {
      t.values.assign(p.float_data().begin(), p.float_data().end());
    }
  } else if (p.data_type() == onnx::TensorProto_DataType_DOUBLE) {
    if (p.has_raw_data()) {
      if (p.raw_data().size() != n * 8) throw ConfigError(path + ": error: raw_data size disagrees with dims");
      std::vector<double> d(n);
      std::memcpy(d.data(), p.raw_data().data(), n * 8);
      t.values.assign(d.begin(), d.end());
    } else {
      t.values.assign(p.double_data().begin(), p.double_data().end());
    }
  } else {
    throw ConfigError(path + ": error: TensorProto data_type " + std::to_string(p.data_type()) +
                      " is not FLOAT (1) or DOUBLE (11); runs with data take fp32 inputs");
  }
  if (t.values.size() != n)
    throw ConfigError(path + ": error: " + std::to_string(t.values.size()) + " values for dims needing " +
                      std::to_string(n));
  return t;
}

void write_tensor_pb(const std::string& path, const HostTensor& t) {
  onnx::TensorProto p;
  p.set_name(t.name);
  p.set_data_type(onnx::TensorProto_DataType_FLOAT);
  for (std::int64_t d : t.shape) p.add_dims(d);
  p.set_raw_data(std::string(reinterpret_cast<const char*>(t.values.data()), t.values.size() * 4));
  write_bytes(path, p.SerializeAsString());
}

void write_npy(const std::string& path, const HostTensor& t) {
  std::string shape = "(";
  for (std::size_t i = 0; i < t.shape.size(); ++i) shape += std::to_string(t.shape[i]) + (t.shape.size() == 1 || i + 1 < t.shape.size() ? "," : "");
  shape += ")";
  std::string h = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
  // Header padded with spaces and ended by '\n' so that magic + 4 + header is a multiple of 64.
  const std::size_t total = 10 + h.size() + 1;
  h.append((64 - total % 64) % 64, ' ');
  h += '\n';
  std::string out = "\x93NUMPY";
  out += char(1);
  out += char(0);
  out += char(h.size() & 0xff);
  out += char((h.size() >> 8) & 0xff);
  out += h;
  out.append(reinterpret_cast<const char*>(t.values.data()), t.values.size() * 4);
  write_bytes(path, out);
}

}  // namespace npu::compiler
