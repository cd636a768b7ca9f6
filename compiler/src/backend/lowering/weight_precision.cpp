#include "npu/compiler/backend/lowering/weight_precision.hpp"

#include <set>

#include "npu/isa/cost/precision.hpp"

namespace npu::compiler {

namespace {

// A GEMM whose weights could be stored in the weight type: a constant B that is a DDR root.
bool narrow_candidate(const LoweredGraph& lg, const LayerSpec& L, const MacArrayConfig& a) {
  if (L.kind != LayerKind::Gemm || L.weight.empty()) return false;
  if (isa::weight_elem_bits(a) == 8 * dtype_bytes(a.dtype)) return false;
  // A B computed at run time (attention's K^T, V) is an activation, in the array's dtype.
  for (const auto& d : lg.ddr_tensors)
    if (d.name == L.weight) return d.kind == isa::TensorKind::Weight;
  return false;
}

}  // namespace

bool gemm_weights_in_weight_dtype(const LoweredGraph& lg, const LayerSpec& L, const MacArrayConfig& a) {
  (void)a;  // the choice was made once for the whole graph (weight_dtype_tensor_bytes, at lowering)
  return L.kind == LayerKind::Gemm && !L.weight.empty() && lg.weight_dtype_bytes.count(L.weight) > 0;
}

std::uint64_t gemm_weight_bytes(const LayerSpec& L, std::uint64_t n, const MacArrayConfig& a) {
  return isa::weight_matrix_bytes(std::uint64_t(L.geom.c_in), n, a);
}

std::map<std::string, std::uint64_t> weight_dtype_tensor_bytes(const LoweredGraph& lg, const MacArrayConfig& a) {
  std::map<std::string, std::uint64_t> narrow;
  std::set<std::string> other;  // roots read in another role, or at another size
  const auto root = [&](const std::string& t) {
    const auto it = lg.place.find(t);
    return it == lg.place.end() ? t : it->second.root;
  };
  for (const LayerSpec& L : lg.layers) {
    const bool stored_narrow = narrow_candidate(lg, L, a);
    for (const std::string* w : {&L.weight, &L.glu_gate}) {
      if (w->empty()) continue;
      if (!stored_narrow || root(*w) != *w) {
        other.insert(root(*w));
        continue;
      }
      // A tile's LOAD starts at gemm_weight_bytes(co0) and moves gemm_weight_bytes(cot), each
      // rounded up to a byte: with K x n not a whole number of bytes (int4, K odd) the last
      // tile may end one byte past the exact total, so the region keeps that byte.
      const std::uint64_t K = std::uint64_t(L.geom.c_in), bits = std::uint64_t(isa::weight_elem_bits(a));
      const std::uint64_t b = gemm_weight_bytes(L, std::uint64_t(L.geom.c_out), a) + ((K * bits) % 8 != 0 ? 1 : 0);
      if (!narrow.emplace(*w, b).second && narrow.at(*w) != b) other.insert(*w);
    }
    for (const std::string& t : L.inputs) other.insert(root(t));
    // Every other tensor field of LayerSpec (layout pieces read through `inputs`).
    for (const std::string* t : {&L.bias, &L.scale_shift, &L.residual, &L.in_scale, &L.prologue_params,
                                 &L.rope_table, &L.output, &L.linear_weights, &L.requant})
      if (!t->empty()) other.insert(root(*t));
  }
  for (const auto& [name, p] : lg.place)  // a view into a weight is another reader
    if (name != p.root) other.insert(p.root);
  for (const std::string& t : other) narrow.erase(t);
  // One answer per layer: codegen and the report narrow a layer's weight and its fuse-swiglu
  // gate together (gemm_weights_in_weight_dtype asks about L.weight), so a layer keeps its
  // tensors narrow only when both are; dropping one can drop another layer's, hence the loop.
  for (bool changed = true; changed;) {
    changed = false;
    for (const LayerSpec& L : lg.layers) {
      if (L.kind != LayerKind::Gemm || L.glu_gate.empty()) continue;
      const bool w = narrow.count(L.weight) > 0, g = narrow.count(L.glu_gate) > 0;
      if (w == g) continue;
      narrow.erase(L.weight);
      narrow.erase(L.glu_gate);
      changed = true;
    }
  }
  return narrow;
}

}  // namespace npu::compiler
