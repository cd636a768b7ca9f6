// DDR bytes of a GEMM's constant weights in mac_array.weight_dtype (docs/config.md
// "Precisions", formulas in npu/isa/cost/precision.hpp).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "npu/compiler/backend/lowering/lowering.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace npu::compiler {

/// True when `L` is a Gemm whose constant weights are stored in a type of another width than
/// the array's dtype (weight_dtype int4, or int8/fp16 under a wider array): its weight LOADs
/// and compulsory bytes then count isa::weight_matrix_bytes instead of K x N x dtype bytes.
bool gemm_weights_in_weight_dtype(const LoweredGraph& lg, const LayerSpec& L, const MacArrayConfig& a);

/// Bytes of the first `n` output columns of `L`'s K x N weights (K = geom.c_in) in the weight
/// type, scales included: the DDR offset of N-tile starting at column n, and for n = c_out the
/// whole tensor. Only meaningful when gemm_weights_in_weight_dtype().
std::uint64_t gemm_weight_bytes(const LayerSpec& L, std::uint64_t n, const MacArrayConfig& a);

/// The DDR tensors stored in the weight type, with their bytes there (gemm_weight_bytes of the
/// whole K x N): the weights and fuse-swiglu gates of the GEMMs of gemm_weights_in_weight_dtype()
/// that are DDR roots no layer reads in another role or through a view (a tied embedding table
/// a Gather reads stays in dtype). The program declares these regions with these bytes, so the
/// network's compulsory bytes (isa::compulsory_bytes) count the weights as they are stored.
std::map<std::string, std::uint64_t> weight_dtype_tensor_bytes(const LoweredGraph& lg, const MacArrayConfig& a);

}  // namespace npu::compiler
