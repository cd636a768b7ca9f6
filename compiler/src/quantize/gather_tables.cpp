// Grids of the tables of Gathers by run-time indices (shared_grids.hpp, range_gather_tables).
#include <algorithm>

#include "npu/compiler/quantize/shared_grids.hpp"

namespace npu::compiler {

std::vector<std::string> range_gather_tables(const Graph& graph, std::map<std::string, TensorRange>& ranges) {
  std::vector<std::string> out;
  for (const Node& n : graph.nodes) {
    if (n.op_type != "Gather" || n.inputs.size() < 2 || n.outputs.empty() || !ranges.count(n.outputs[0])) continue;
    const std::string& table = n.inputs[0];
    if (!graph.has_tensor(table) || !graph.has_tensor(n.inputs[1]) || ranges.count(table)) continue;
    const Tensor& t = graph.tensor(table);
    if (!t.is_constant || t.quant || graph.tensor(n.inputs[1]).is_constant || t.elements() <= 0 ||
        std::int64_t(t.float_data.size()) != t.elements())
      continue;  // a Gather at constant indices is folded or moves an activation: share_grids links it
    TensorRange r;  // with 0 (an int8 grid holds 0 exactly), as every range
    for (float v : t.float_data) r.lo = std::min(r.lo, v), r.hi = std::max(r.hi, v);
    ranges[table] = r;
    out.push_back(table);
  }
  return out;
}

}  // namespace npu::compiler
