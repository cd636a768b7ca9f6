// fp32 tensors in files, for runs with data (docs/functional.md, "Tensor files"): ONNX
// TensorProto (.pb, the ONNX backend-test layout `test_data_set_0/input_0.pb`) and NumPy
// .npy (format version 1.0, NEP 1: magic "\x93NUMPY", version, header length, a Python dict
// header {'descr': '<f4', 'fortran_order': False, 'shape': (...)}, then the raw values).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace npu::compiler {

struct HostTensor {
  std::string name;                 ///< TensorProto name ("" for .npy)
  std::vector<std::int64_t> shape;  ///< row-major (C order)
  std::vector<float> values;
};

/// Reads `path`: `.npy` (little-endian float32 '<f4', C order) or anything else as a
/// serialized onnx::TensorProto of FLOAT (float_data or raw_data) or DOUBLE (converted).
/// Throws npu::ConfigError naming the file and what is wrong (unreadable, not a tensor, other
/// element type, Fortran order, size disagreeing with the shape).
HostTensor read_tensor_file(const std::string& path);

/// Writes `t` as a TensorProto of FLOAT (raw_data, little-endian) named t.name; `.npy` as
/// above. Throws npu::ConfigError when the file cannot be written.
void write_tensor_pb(const std::string& path, const HostTensor& t);
void write_npy(const std::string& path, const HostTensor& t);

}  // namespace npu::compiler
