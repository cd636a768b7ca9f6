// Tensor files for functional checking: ONNX TensorProto (.pb, the ONNX backend-test layout
// `test_data_set_N/{input,output}_K.pb`, read and written with libonnx's protobuf classes)
// and NumPy .npy (format version 1.0, numpy/doc/neps/nep-0001-npy-format.rst: magic
// "\x93NUMPY", version 1 0, little-endian uint16 header length, a Python dict literal
// {'descr', 'fortran_order', 'shape'} padded with spaces to a multiple of 64 bytes and
// ending in '\n', then the raw little-endian data in C order).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "npu/compiler/reference/reference_interpreter.hpp"

namespace npu::compiler {

/// Reads the TensorProto in `path`. Float data (float, float16, double) comes back as
/// Float32; integer and bool data as int64 values with the file's ElemType. `name`, if given,
/// receives the proto's name (maybe empty). Throws npu::ConfigError "PATH: error: ..." for a
/// missing or unreadable file and every error of import_tensor_proto() (onnx_import.hpp).
RefTensor read_tensor_pb(const std::string& path, std::string* name = nullptr);

/// Reads a .npy file (by its name; float32 '<f4', or int64 '<i8' / int32 '<i4' read as an
/// integer tensor (token ids), C order, format versions 1-3) or else a
/// TensorProto as read_tensor_pb. Throws npu::ConfigError naming the file and what is wrong
/// (not .npy, another dtype, Fortran order, data size disagreeing with the shape).
RefTensor read_tensor_file(const std::string& path, std::string* name = nullptr);

/// Refuses a file whose values have `input`'s element count in another shape: they would be
/// read in the input's order, so an NHWC image for an NCHW input would be a silently wrong
/// input. Accepted: `input.shape` up to dimensions of size 1 ([3,32,32] for [1,3,32,32]) and a
/// 1-D file (flattened on purpose). Throws npu::ConfigError "PATH: error: the file's shape
/// [..] is not graph input 'NAME''s [..]" with the fix.
void check_input_layout(const std::vector<std::int64_t>& file_shape, const Tensor& input, const std::string& path);

/// Writes `t` as a TensorProto named `name` to `path`: FLOAT raw_data for Float32, INT64
/// raw_data for integer tensors (BOOL for Bool). Throws npu::ConfigError naming the path
/// when it cannot be written.
void write_tensor_pb(const std::string& path, const RefTensor& t, const std::string& name);

/// Writes `t` as .npy: descr '<f4' for Float32, '<i8' for integer tensors ('|b1' for Bool).
/// Throws npu::ConfigError naming the path when it cannot be written.
void write_npy(const std::string& path, const RefTensor& t);

}  // namespace npu::compiler
