// Gathers of table rows by run-time indices, run as gather LOADs of the selected rows
// (docs/compiler.md "Lowering", docs/isa.md "LOAD gather"):
// - Gather(table [V, D...], indices, axis 0) of a constant table (a token embedding: wte by
//   input_ids; a detection head's anchors by indices the program computed from a TopK), or of
//   an activation by non-constant indices (a detection head's box deltas by TopK indices);
// - GatherND(data [V, D...], indices [..., 1]) with batch_dims 0 (RetinaNet's scores above the
//   threshold, by NonZero's indices): the same row gather, one index per row.
// Indices that are a graph input's ids (through views: LowerCtx::int32_ids) are int32 in DDR;
// indices an earlier layer (or the host) computed are at the activation width and the LOAD
// reads them as fp32 (index_float=4). A Gather of an
// activation by constant indices stays a view / costed layout copy (layout_ops.cpp,
// layout_views.cpp).
#include <algorithm>

#include "backend/lowering/lowering_table.hpp"

namespace npu::compiler::lowering {

std::string row_limits(const std::string& what, std::uint64_t rows, std::uint64_t row_elems) {
  constexpr std::uint64_t kMaxRows = 0xffffffffull, kMaxRow = 0x7fffffffull;
  if (rows > kMaxRows)
    return what + " of " + std::to_string(rows) + " rows: at most 2^32 - 1 = 4294967295 (the gather LOAD's "
           "table_rows field is 32-bit)";
  if (row_elems > kMaxRow)
    return what + " rows of " + std::to_string(row_elems) + " elements: at most 2^31 - 1 = 2147483647 (a layer's "
           "row length is a 32-bit signed count)";
  return "";
}

namespace {

// Rows (axis 0) and row elements of a table of shape `s`; false when it has none.
bool table_rows(const std::vector<std::int64_t>& s, std::uint64_t& rows, std::uint64_t& row_elems) {
  if (s.empty()) return false;
  rows = std::uint64_t(std::max<std::int64_t>(s[0], 0));
  row_elems = 1;
  for (std::size_t d = 1; d < s.size(); ++d) row_elems *= std::uint64_t(std::max<std::int64_t>(s[d], 0));
  return rows >= 1 && row_elems >= 1;
}

// What a row gather of table input 0 by indices input 1 needs (both ops): "" or why not.
std::string check_rows(const Graph& g, const Node& n) {
  const ElemType it = g.tensor(n.inputs[1]).type;
  if (it != ElemType::Int64 && it != ElemType::Int32) return n.op_type + " indices that are not int64/int32";
  std::uint64_t rows = 0, row = 0;
  if (!table_rows(g.tensor(n.inputs[0]).shape, rows, row)) return n.op_type + " of an empty table";
  return row_limits(n.op_type + " table", rows, row);
}

std::string check_gather(const Graph& g, const Node& n) {
  if (auto r = shapes_known(g, n); !r.empty()) return r;
  if (n.inputs.size() < 2 || n.inputs[0].empty() || n.inputs[1].empty()) return "Gather without data and indices";
  if (is_const(g, n.inputs[1])) return "Gather of a constant by constant indices (the front-end folds it)";
  const std::int64_t axis = n.attr_int("axis", 0);
  if (axis != 0 && axis != -std::int64_t(g.tensor(n.inputs[0]).shape.size()))
    return "Gather of a constant along axis " + std::to_string(axis) + " (the NPU gathers rows: axis 0)";
  return check_rows(g, n);
}

// GatherND(data, indices [..., q], batch_dims 0) with q = 1: out[i...] = data[indices[i..., 0]].
std::string check_gather_nd(const Graph& g, const Node& n) {
  if (auto r = shapes_known(g, n); !r.empty()) return r;
  if (n.inputs.size() < 2 || n.inputs[0].empty() || n.inputs[1].empty()) return "GatherND without data and indices";
  if (n.attr_int("batch_dims", 0) != 0)
    return "GatherND with batch_dims " + std::to_string(n.attr_int("batch_dims", 0)) +
           " (the NPU gathers rows of axis 0: batch_dims 0)";
  const std::vector<std::int64_t>& is = g.tensor(n.inputs[1]).shape;
  if (is.empty() || is.back() != 1)
    return "GatherND with index tuples of length " + (is.empty() ? std::string("0") : std::to_string(is.back())) +
           " (the NPU gathers rows of axis 0: indices [..., 1])";
  return check_rows(g, n);
}

// One Gather layer: rows of table input 0 chosen by the indices input 1 (one per row).
void lower_rows(LowerCtx& ctx, const Node& n) {
  const Graph& g = ctx.graph();
  LayerSpec L = ctx.base(n, LayerKind::Gather);
  std::uint64_t rows = 0, row = 0;
  table_rows(g.tensor(n.inputs[0]).shape, rows, row);
  L.inputs = {n.inputs[1]};  // the indices: int32 in DDR (4 B each), or computed at the activation width
  L.gather_index_float = !ctx.int32_ids(n.inputs[1]);  // LowerCtx::int32_ids
  L.weight = n.inputs[0];    // the table [V, D...] in DDR: a constant or an activation
  L.output = n.outputs[0];
  L.in_elems = elements(g, n.inputs[1]);  // GatherND: [..., 1], one index a row as well
  L.elems = L.in_elems * row;
  L.gather_rows = rows;
  L.channels = int(row);
  ctx.finish(L);
}

// The entry point registered by add_layout_ops: a Gather of a constant table, or of an
// activation by non-constant indices -> a Gather layer; an activation by constant indices ->
// the layout family's view or streaming copy (`activation_gather`).
OpLowering activation_gather;

bool gathers_rows(const Graph& g, const Node& n) {
  return n.inputs.size() >= 2 && !n.inputs[0].empty() && !n.inputs[1].empty() && !is_const(g, n.inputs[1]) &&
         g.has_tensor(n.inputs[1]) && check_gather(g, n).empty();
}

std::string check_any(const Graph& g, const Node& n) {
  if (n.inputs.empty() || n.inputs[0].empty() || !is_const(g, n.inputs[0]))
    return gathers_rows(g, n) ? "" : activation_gather.check(g, n);
  return check_gather(g, n);
}

void lower_any(LowerCtx& ctx, const Node& n) {
  const Graph& g = ctx.graph();
  if (!is_const(g, n.inputs[0]) && !gathers_rows(g, n)) return activation_gather.lower(ctx, n);
  lower_rows(ctx, n);
}

}  // namespace

void add_embedding_gather(std::map<std::string, OpLowering>& t) {
  activation_gather = t.at("Gather");
  t["Gather"] = OpLowering{check_any, lower_any, nullptr};
  t["GatherND"] = OpLowering{check_gather_nd, lower_rows, nullptr};
}

}  // namespace npu::compiler::lowering
