#include "npu/compiler/backend/lowering/weight_precision.hpp"

#include "npu/isa/cost/precision.hpp"

namespace npu::compiler {

bool gemm_weights_in_weight_dtype(const LoweredGraph& lg, const LayerSpec& L, const MacArrayConfig& a) {
  if (L.kind != LayerKind::Gemm || L.weight.empty()) return false;
  if (isa::weight_elem_bits(a) == 8 * dtype_bytes(a.dtype)) return false;
  // A B computed at run time (attention's K^T, V) is an activation, in the array's dtype.
  for (const auto& d : lg.ddr_tensors)
    if (d.name == L.weight) return d.kind == isa::TensorKind::Weight;
  return false;
}

std::uint64_t gemm_weight_bytes(const LayerSpec& L, std::uint64_t n, const MacArrayConfig& a) {
  return isa::weight_matrix_bytes(std::uint64_t(L.geom.c_in), n, a);
}

}  // namespace npu::compiler
