// ScatterElements of whole rows (issue 28 kind 8: Mask R-CNN's MultiScaleRoIAlign writes each
// level's RoIAlign rows into the result, `result[idx] = rows`, exported as
// ScatterElements(result, Expand(Reshape(idx, [n, 1, 1, 1]), [n, C, H, W]), rows, axis 0)): a
// Gather layer in its scatter form (LayerSpec::scatter). It copies the data to the output, then
// STOREs update row r at output row idx[r] (scatter STOREs, docs/isa.md "LOAD gather"), reading
// the n indices before the Expand. Other forms keep the layout family's entry (a costed copy of
// an activation; a constant's on the host) (docs/compiler.md "Lowering").
#include <algorithm>

#include "backend/lowering/lowering_table.hpp"

namespace npu::compiler::lowering {

namespace {

using Shape = std::vector<std::int64_t>;

OpLowering layout_scatter;  // the layout family's entry (layout_ops.cpp)

// The tensor holding one index per row of ScatterElements `n`'s indices: the input of an
// Expand whose input is [n, 1, ..., 1] (or the indices themselves when a row is one element);
// "" when the indices are not constant along a row.
std::string row_indices(const Graph& g, const Node& n) {
  const std::string& idx = n.inputs[1];
  const Shape& is = g.tensor(idx).shape;
  if (is.empty()) return "";
  std::int64_t row = 1;
  for (std::size_t d = 1; d < is.size(); ++d) row *= is[d];
  if (row == 1) return idx;
  const auto p = g.producer(idx);
  if (!p) return "";
  const Node& e = g.nodes[*p];
  if (e.op_type != "Expand" || e.inputs.empty() || !g.has_tensor(e.inputs[0])) return "";
  const Shape& s = g.tensor(e.inputs[0]).shape;
  if (s.size() != is.size() || s[0] != is[0]) return "";
  for (std::size_t d = 1; d < s.size(); ++d)
    if (s[d] != 1) return "";
  return e.inputs[0];
}

// "" when `n` is a row scatter this file lowers, else why not (then the layout entry decides).
std::string row_scatter(const Graph& g, const Node& n) {
  if (auto r = shapes_known(g, n); !r.empty()) return r;
  if (n.inputs.size() < 3 || n.inputs[0].empty() || n.inputs[1].empty() || n.inputs[2].empty())
    return "ScatterElements without data, indices and updates";
  const Shape& ds = g.tensor(n.inputs[0]).shape;
  const Shape& is = g.tensor(n.inputs[1]).shape;
  const Shape& us = g.tensor(n.inputs[2]).shape;
  std::int64_t axis = n.attr_int("axis", 0);
  if (axis < 0) axis += std::int64_t(ds.size());
  if (axis != 0) return "ScatterElements along axis " + std::to_string(axis) + " (the NPU scatters rows: axis 0)";
  if (n.attr_string("reduction", "none") != "none")
    return "ScatterElements with reduction '" + n.attr_string("reduction", "none") + "' (the NPU stores rows: none)";
  if (is != us || ds.size() != us.size() || ds.empty() || !std::equal(ds.begin() + 1, ds.end(), us.begin() + 1))
    return "ScatterElements whose updates are not whole rows of the data";
  if (is_const(g, n.inputs[1])) return "ScatterElements by constant indices";
  if (row_indices(g, n).empty()) return "ScatterElements whose indices differ along a row";
  const ElemType it = g.tensor(n.inputs[1]).type;
  if (it != ElemType::Int64 && it != ElemType::Int32) return "ScatterElements indices that are not int64/int32";
  std::uint64_t row = 1;
  for (std::size_t d = 1; d < ds.size(); ++d) row *= std::uint64_t(std::max<std::int64_t>(ds[d], 0));
  return row_limits("ScatterElements data", std::uint64_t(std::max<std::int64_t>(ds[0], 0)), row);
}

std::string check_scatter(const Graph& g, const Node& n) {
  if (row_scatter(g, n).empty()) return "";
  return layout_scatter.check(g, n);
}

void lower_scatter(LowerCtx& ctx, const Node& n) {
  const Graph& g = ctx.graph();
  if (!row_scatter(g, n).empty()) return layout_scatter.lower(ctx, n);
  LayerSpec L = ctx.base(n, LayerKind::Gather);
  const std::string idx = row_indices(g, n);
  const Shape& ds = g.tensor(n.inputs[0]).shape;
  L.scatter = true;
  L.inputs = {n.inputs[0], idx, n.inputs[2]};  // data (copied), one index a row, update rows
  L.gather_index_float = !ctx.int32_ids(idx);  // LowerCtx::int32_ids
  L.output = n.outputs[0];
  L.gather_rows = std::uint64_t(ds[0]);
  L.elems = elements(g, n.inputs[0]);
  L.in_elems = elements(g, idx);
  L.channels = int(L.elems / std::max<std::uint64_t>(L.gather_rows, 1));
  ctx.finish(L);
}

}  // namespace

std::set<std::string> scatter_expands(const Graph& g, const std::vector<bool>& npu_placed) {
  std::set<std::string> out;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& e = g.nodes[i];
    if (!npu_placed[i] || e.op_type != "Expand" || e.outputs.empty() || e.outputs[0].empty()) continue;
    const std::string& t = e.outputs[0];
    if (std::find(g.outputs.begin(), g.outputs.end(), t) != g.outputs.end()) continue;
    const auto readers = g.consumers(t);
    bool all = !readers.empty();
    for (std::size_t r : readers) {
      const Node& s = g.nodes[r];
      all = all && npu_placed[r] && s.op_type == "ScatterElements" && s.inputs.size() > 2 && s.inputs[1] == t &&
            s.inputs[0] != t && s.inputs[2] != t && row_scatter(g, s).empty() && row_indices(g, s) != t;
    }
    if (all) out.insert(t);
  }
  return out;
}

void add_scatter_ops(std::map<std::string, OpLowering>& t) {
  layout_scatter = t.at("ScatterElements");
  t["ScatterElements"] = OpLowering{check_scatter, lower_scatter, nullptr};
}

}  // namespace npu::compiler::lowering
