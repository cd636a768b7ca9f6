// Gather of a constant table by run-time indices (a token embedding: Gather(wte [V, D],
// input_ids [B, S], axis 0)): a Gather layer, run as gather LOADs of the selected rows
// (docs/compiler.md "Lowering", docs/isa.md "LOAD gather"). A Gather of an activation stays a
// costed layout copy (layout_ops.cpp).
#include <algorithm>

#include "backend/lowering/lowering_table.hpp"

namespace npu::compiler::lowering {

namespace {

// Rows and row elements of the table `n` gathers from axis 0 (the only form lowered here).
bool table_rows(const Graph& g, const Node& n, std::uint64_t& rows, std::uint64_t& row_elems) {
  const std::vector<std::int64_t>& s = g.tensor(n.inputs[0]).shape;
  if (s.empty() || n.attr_int("axis", 0) != 0) return false;
  rows = std::uint64_t(s[0]);
  row_elems = 1;
  for (std::size_t d = 1; d < s.size(); ++d) row_elems *= std::uint64_t(s[d]);
  return rows >= 1 && row_elems >= 1;
}

std::string check_gather(const Graph& g, const Node& n) {
  if (auto r = shapes_known(g, n); !r.empty()) return r;
  if (n.inputs.size() < 2 || n.inputs[0].empty() || n.inputs[1].empty()) return "Gather without data and indices";
  if (!is_const(g, n.inputs[0])) return "";  // a Gather of an activation: a layout copy (layout_ops.cpp)
  if (is_const(g, n.inputs[1])) return "Gather of a constant by constant indices (the front-end folds it)";
  const ElemType it = g.tensor(n.inputs[1]).type;
  if (it != ElemType::Int64 && it != ElemType::Int32) return "Gather indices that are not int64/int32";
  std::uint64_t rows = 0, row = 0;
  const std::int64_t axis = n.attr_int("axis", 0);
  if (axis != 0 && axis != -std::int64_t(g.tensor(n.inputs[0]).shape.size()))
    return "Gather of a constant along axis " + std::to_string(axis) + " (the NPU gathers rows: axis 0)";
  if (!table_rows(g, n, rows, row)) return "Gather of a constant with an empty table";
  if (rows > 0xffffffffull || row > 0xffffffffull) return "Gather table rows or row length above 2^32";
  return "";
}

void lower_gather(LowerCtx& ctx, const Node& n) {
  const Graph& g = ctx.graph();
  LayerSpec L = ctx.base(n, LayerKind::Gather);
  std::uint64_t rows = 0, row = 0;
  table_rows(g, n, rows, row);
  L.inputs = {n.inputs[1]};  // the indices, int32 in DDR (4 B each)
  L.weight = n.inputs[0];    // the table [V, D...] in DDR
  L.output = n.outputs[0];
  L.in_elems = elements(g, n.inputs[1]);
  L.elems = L.in_elems * row;
  L.gather_rows = rows;
  L.channels = int(row);
  ctx.finish(L);
}

// The entry point registered by add_layout_ops: a constant table -> a Gather layer; an
// activation -> the layout family's streaming copy (`activation`).
OpLowering activation_gather;

// Gather LOADs read int32 indices from DDR: a graph input's (token ids), through views.
// Indices computed in the program (Faster R-CNN's RPN adds offsets to its top-k indices) are at
// the activation width (lowering.cpp tensor_bytes), so such a Gather is not lowered here.
bool gathers_rows(const Graph& g, const Node& n) {
  if (n.inputs.size() < 2 || n.inputs[0].empty() || !is_const(g, n.inputs[0])) return false;
  std::string t = n.inputs[1];
  for (int guard = 0; guard < 1000; ++guard) {
    const auto p = g.producer(t);
    if (!p) return std::find(g.inputs.begin(), g.inputs.end(), t) != g.inputs.end();
    const Node& v = g.nodes[*p];
    const OpLowering* e = find(v.op_type);  // an alias entry of the table: Reshape, Flatten, Squeeze...
    if (!e || !e->alias || v.on_host || v.inputs.empty()) return false;
    t = v.inputs[0];
  }
  return false;
}

std::string check_any(const Graph& g, const Node& n) {
  if (n.inputs.empty() || n.inputs[0].empty() || !is_const(g, n.inputs[0])) return activation_gather.check(g, n);
  if (n.inputs.size() > 1 && !is_const(g, n.inputs[1]) && !gathers_rows(g, n))
    return "Gather of a constant table by indices computed in the graph (gather LOADs read int32 indices from a "
           "graph input, such as token ids; indices the program computes are at the activation width)";
  return check_gather(g, n);
}

void lower_any(LowerCtx& ctx, const Node& n) {
  if (!gathers_rows(ctx.graph(), n)) return activation_gather.lower(ctx, n);
  lower_gather(ctx, n);
}

}  // namespace

void add_embedding_gather(std::map<std::string, OpLowering>& t) {
  activation_gather = t.at("Gather");
  t["Gather"] = OpLowering{check_any, lower_any, nullptr};
}

}  // namespace npu::compiler::lowering
