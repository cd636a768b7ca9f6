// Reduction op family: ReduceMean / ReduceSum / ReduceMax / ReduceMin over trailing axes run
// as a global pool on the vector unit (MNASNet's and ShuffleNetV2's mean pooling over H, W;
// the mean and variance of a LayerNorm written out over the last axis).
#include <algorithm>
#include <set>

#include "backend/lowering/lowering_table.hpp"
#include "npu/compiler/transforms/pass.hpp"

namespace npu::compiler::lowering {

namespace {

using Shape = std::vector<std::int64_t>;

// The reduced axes (normalised, sorted); all axes when none are given.
std::vector<std::int64_t> reduced_axes(const Graph& g, const Node& n, bool& ok) {
  ok = true;
  const Shape& s = g.tensor(n.inputs[0]).shape;
  std::vector<std::int64_t> axes;
  if (n.has_attr("axes")) axes = n.attr_ints("axes");
  else if (n.inputs.size() > 1 && !n.inputs[1].empty()) {
    if (!is_const(g, n.inputs[1])) {
      ok = false;
      return {};
    }
    axes = g.tensor(n.inputs[1]).int_data;
  }
  if (axes.empty())
    for (std::size_t i = 0; i < s.size(); ++i) axes.push_back(std::int64_t(i));
  std::set<std::int64_t> set;
  for (auto a : axes) set.insert(a < 0 ? a + std::int64_t(s.size()) : a);
  return {set.begin(), set.end()};
}

// Pool geometry: rows = product of the kept leading axes, (h, w) = the reduced trailing axes
// (h = all reduced axes but the last, w = the last). "" or why it does not fit.
std::string geometry(const Graph& g, const Node& n, std::int64_t& rows, std::int64_t& h, std::int64_t& w) {
  if (auto r = shapes_known(g, n); !r.empty()) return r;
  bool ok;
  const auto axes = reduced_axes(g, n, ok);
  if (!ok) return n.op_type + " axes computed at run time";
  const Shape& s = g.tensor(n.inputs[0]).shape;
  if (axes.empty()) return n.op_type + " with no axes";
  // The reduced axes must be the trailing ones (ignoring size-1 axes in between).
  std::int64_t first = axes.front();
  for (std::int64_t d = first; d < std::int64_t(s.size()); ++d)
    if (!std::binary_search(axes.begin(), axes.end(), d) && s[std::size_t(d)] != 1)
      return n.op_type + " over axes that are not the trailing ones of " + shape_string(s) +
             " (the vector unit reduces contiguous trailing axes)";
  rows = 1;
  for (std::int64_t d = 0; d < first; ++d) rows *= s[std::size_t(d)];
  w = s.back();
  h = 1;
  for (std::int64_t d = first; d + 1 < std::int64_t(s.size()); ++d) h *= s[std::size_t(d)];
  if (rows > INT32_MAX || h > INT32_MAX || w > INT32_MAX) return n.op_type + " dimensions beyond 2^31";
  return "";
}

std::string check_reduce(const Graph& g, const Node& n) {
  std::int64_t rows, h, w;
  if (n.attr_int("noop_with_empty_axes", 0) != 0) return n.op_type + " with noop_with_empty_axes";
  return geometry(g, n, rows, h, w);
}

void lower_reduce(LowerCtx& ctx, const Node& n) {
  std::int64_t rows = 1, h = 1, w = 1;
  if (auto r = geometry(ctx.graph(), n, rows, h, w); !r.empty()) ctx.fail(n, r);
  LayerSpec L = ctx.base(n, LayerKind::Pool);
  L.inputs = {n.inputs[0]};
  ConvGeom& c = L.geom;
  c.c_in = c.c_out = c.group = int(rows);
  c.h_in = int(h);
  c.w_in = int(w);
  c.h_out = c.w_out = 1;
  c.kh = c.h_in;
  c.kw = c.w_in;
  L.channels = c.c_in;
  // Max/Min: a max pool whose window is the whole plane; Mean/Sum: the global average pool
  // (a sum costs the vector unit the same pass; only the final scale differs).
  L.pool = (n.op_type == "ReduceMax" || n.op_type == "ReduceMin") ? isa::PoolOp::Max : isa::PoolOp::GlobalAvg;
  ctx.finish(L);
}

}  // namespace

void add_reduce_ops(std::map<std::string, OpLowering>& t) {
  for (const char* op : {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin"})
    t[op] = OpLowering{check_reduce, lower_reduce, nullptr};
}

}  // namespace npu::compiler::lowering
