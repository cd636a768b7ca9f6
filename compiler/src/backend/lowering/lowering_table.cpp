// The lowering table (lowering_table.hpp): one entry per op, filled by the op families.
#include "backend/lowering/lowering_table.hpp"

namespace npu::compiler::lowering {

const std::map<std::string, OpLowering>& table() {
  static const std::map<std::string, OpLowering> kTable = [] {
    std::map<std::string, OpLowering> t;
    add_vector_ops(t);
    add_reduce_ops(t);
    add_layout_ops(t);
    add_matmul_ops(t);
    add_conv_transpose(t);
    return t;
  }();
  return kTable;
}

const OpLowering* find(const std::string& op_type) {
  auto it = table().find(op_type);
  return it == table().end() ? nullptr : &it->second;
}

bool is_const(const Graph& g, const std::string& t) { return !t.empty() && g.has_tensor(t) && g.tensor(t).is_constant; }

std::string shapes_known(const Graph& g, const Node& n) {
  for (const auto* list : {&n.inputs, &n.outputs})
    for (const auto& t : *list)
      if (!t.empty() && (!g.has_tensor(t) || !g.tensor(t).shape_known()))
        return "tensor '" + t + "' has a size known only at run time";
  return "";
}

std::uint64_t elements(const Graph& g, const std::string& t) {
  return std::uint64_t(std::max<std::int64_t>(g.tensor(t).elements(), 0));
}

}  // namespace npu::compiler::lowering
