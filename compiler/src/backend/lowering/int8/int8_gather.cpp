// The int8 rule of the token-embedding Gather (int8_lowering.hpp, gather_layer_int8).
#include "npu/compiler/backend/lowering/int8/int8_lowering.hpp"

namespace npu::compiler {

void gather_layer_int8(const Graph& g, const LayerSpec& L, Int8Layer& r) {
  const Tensor* table = g.has_tensor(L.weight) ? &g.tensor(L.weight) : nullptr;
  const Tensor* out = g.has_tensor(L.output) ? &g.tensor(L.output) : nullptr;
  const auto t = table ? activation_grid(*table) : std::nullopt;
  const auto y = out ? activation_grid(*out) : std::nullopt;
  if (!t) {
    r.problem = "table '" + L.weight + "' has no per-tensor int8 quantisation (post-training quantisation gives a "
                "Gather's table the grid of its values)";
    return;
  }
  if (!y) {
    r.problem = "output '" + L.output + "' has no per-tensor int8 quantisation";
    return;
  }
  if (!(*t == *y))
    r.problem = "table '" + L.weight + "' and output '" + L.output + "' are on different int8 grids; the int8 Gather "
                "moves the table's rows as they are (no requantisation), so the output keeps the table's grid";
}

}  // namespace npu::compiler
