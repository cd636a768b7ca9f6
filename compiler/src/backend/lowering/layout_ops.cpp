// Layout op family: data movement without arithmetic. Aliases (Reshape, Flatten, Identity,
// Squeeze, Unsqueeze, Dropout: the output is the input's bytes). Concat: along the outermost
// axis its producers write into its output (zero copy) or its inputs are copied there (Copy
// layer); along an inner axis a layout copy. Zero-copy views where the layout
// allows (a Slice or Split along the outermost non-unit axis, an all-zero Pad: the outputs are
// byte ranges of the input), otherwise a streaming copy through the vector unit (Layout
// layer: input read once, output written once): Pad, Transpose, Slice, Split, Expand, Tile,
// Gather of an activation, DepthToSpace/SpaceToDepth, RoiAlign (4 bilinear taps an output
// element) and ScatterElements. (Resize modes other than integer nearest upsampling are
// layout copies too: resize_ops.cpp.)
#include <algorithm>

#include "backend/lowering/lowering_table.hpp"
#include "npu/compiler/transforms/pass.hpp"

namespace npu::compiler::lowering {

namespace {

using Shape = std::vector<std::int64_t>;

std::string check_layout(const Graph& g, const Node& n) {
  if (auto r = shapes_known(g, n); !r.empty()) return r;
  if (n.inputs.empty() || n.inputs[0].empty() || is_const(g, n.inputs[0])) return n.op_type + " of a constant";
  return "";
}

void lower_layout(LowerCtx& ctx, const Node& n) {
  const Graph& g = ctx.graph();
  // Several outputs (Split): one layer per output, each reading its share of the input.
  std::size_t outs = 0;
  for (const auto& o : n.outputs) outs += o.empty() ? 0 : 1;
  const std::uint64_t in_total = elements(g, n.inputs[0]);
  std::uint64_t out_total = 0;
  for (const auto& o : n.outputs)
    if (!o.empty()) out_total += elements(g, o);
  for (std::size_t k = 0; k < n.outputs.size(); ++k) {
    if (n.outputs[k].empty()) continue;
    if (ctx.composed().count(n.outputs[k])) continue;  // its readers compute it (composed_views)
    LayerSpec L = ctx.base(n, LayerKind::Layout);
    if (outs > 1) L.name += ":" + std::to_string(k);
    L.inputs = {n.inputs[0]};
    L.output = n.outputs[k];
    L.elems = elements(g, n.outputs[k]);
    // A Split/Slice output reads only its own part: for one output, the whole input (Pad,
    // Transpose, Expand, Tile read all of it once).
    L.in_elems = outs > 1 && out_total ? in_total * L.elems / out_total : std::min(in_total, std::max<std::uint64_t>(L.elems, 1));
    if (n.op_type == "Pad" || n.op_type == "Transpose" || n.op_type == "Expand" || n.op_type == "Tile" ||
        n.op_type == "DepthToSpace" || n.op_type == "SpaceToDepth" || n.op_type == "Resize")
      L.in_elems = in_total;
    // RoiAlign gathers 4 bilinear taps per output element from the feature map (at most all
    // of it); ScatterElements reads the data and the updates and writes the data's size.
    if (n.op_type == "RoiAlign") L.in_elems = std::min(in_total, 4 * L.elems);
    if (n.op_type == "ScatterElements" && n.inputs.size() > 2) {
      L.inputs = {n.inputs[0], n.inputs[1], n.inputs[2]};  // data, indices, updates: each read once
      L.in_elems = in_total + elements(g, n.inputs[1]) + elements(g, n.inputs[2]);
    }
    const Shape& s = g.tensor(n.outputs[k]).shape;
    L.channels = s.size() >= 2 ? int(std::max<std::int64_t>(s[1], 1)) : 1;
    L.layout = layout_pieces(g, n, k, &ctx.composed());  // computed by MOVE where the op is a strided view
    read_through_composed(g, ctx.composed(), L);
    ctx.finish(L);
  }
}

// Offset (elements) of a slice [start, ...) of axis `axis` in a row-major tensor when every
// axis before it has size 1: the slice is then one contiguous byte range of the input.
bool outermost(const Shape& s, std::size_t axis) {
  for (std::size_t d = 0; d < axis; ++d)
    if (s[d] != 1) return false;
  return true;
}

std::vector<std::uint64_t> view_split(const Graph& g, const Node& n) {
  if (!shapes_known(g, n).empty() || is_const(g, n.inputs[0])) return {};
  const Shape& s = g.tensor(n.inputs[0]).shape;
  std::int64_t axis = n.attr_int("axis", 0);
  if (axis < 0) axis += std::int64_t(s.size());
  if (axis < 0 || axis >= std::int64_t(s.size()) || !outermost(s, std::size_t(axis))) return {};
  std::uint64_t inner = 1;
  for (std::size_t d = std::size_t(axis) + 1; d < s.size(); ++d) inner *= std::uint64_t(s[d]);
  std::vector<std::uint64_t> offs;
  std::uint64_t at = 0;
  for (const auto& o : n.outputs) {
    offs.push_back(at * inner);
    if (!o.empty()) at += std::uint64_t(g.tensor(o).shape.at(std::size_t(axis)));
  }
  return offs;
}

std::vector<std::uint64_t> view_slice(const Graph& g, const Node& n) {
  if (!shapes_known(g, n).empty() || is_const(g, n.inputs[0])) return {};
  const Shape& s = g.tensor(n.inputs[0]).shape;
  const Shape& o = g.tensor(n.outputs[0]).shape;
  SliceArgs args;
  if (!slice_args(g, n, args)) return {};
  const auto& [starts, ends, axes, steps] = args;
  for (auto st : steps)
    if (st != 1) return {};
  // Exactly one axis actually cut; every axis before it of size 1.
  int cut = -1;
  for (std::size_t d = 0; d < s.size(); ++d)
    if (s[d] != o[d]) {
      if (cut >= 0) return {};
      cut = int(d);
    }
  if (cut < 0) return {0};  // slices nothing: an alias
  if (!outermost(s, std::size_t(cut))) return {};
  std::int64_t start = 0;
  for (std::size_t k = 0; k < axes.size(); ++k) {
    std::int64_t a = axes[k] < 0 ? axes[k] + std::int64_t(s.size()) : axes[k];
    if (a == cut) start = starts.at(k);
  }
  if (start < 0) start += s[std::size_t(cut)];
  start = std::clamp<std::int64_t>(start, 0, s[std::size_t(cut)]);
  std::uint64_t inner = 1;
  for (std::size_t d = std::size_t(cut) + 1; d < s.size(); ++d) inner *= std::uint64_t(s[d]);
  return {std::uint64_t(start) * inner};
}

std::vector<std::uint64_t> view_pad(const Graph& g, const Node& n) {
  if (!shapes_known(g, n).empty()) return {};
  if (g.tensor(n.inputs[0]).shape == g.tensor(n.outputs[0]).shape) return {0};  // all-zero pads: removed
  return {};
}

std::string check_none(const Graph&, const Node&) { return ""; }

void lower_concat(LowerCtx& ctx, const Node& n) {
  const Graph& g = ctx.graph();
  if (const ConcatCopies* cc = ctx.concat_copies(n)) {
    LayerSpec L = ctx.base(n, LayerKind::Copy);
    L.inputs = cc->inputs;
    L.dest_offsets = cc->dest_offsets;
    L.elems = std::uint64_t(g.tensor(n.outputs[0]).elements());
    return ctx.finish(L);
  }
  // Along an inner axis: the inputs interleave in the output; a layout copy that reads
  // every input once and writes the output once.
  LayerSpec L = ctx.base(n, LayerKind::Layout);
  for (const auto& in : n.inputs) {
    L.inputs.push_back(in);
    L.in_elems += std::uint64_t(g.tensor(in).elements());
  }
  L.elems = std::uint64_t(g.tensor(n.outputs[0]).elements());
  L.layout = concat_pieces(g, n, &ctx.composed());
  read_through_composed(g, ctx.composed(), L);
  ctx.finish(L);
}

}  // namespace

std::int64_t concat_outer(const Graph& g, const Node& n) {
  const auto& out = g.tensor(n.outputs[0]).shape;
  std::int64_t axis = n.attr_int("axis", 1);
  if (axis < 0) axis += std::int64_t(out.size());
  std::int64_t outer = 1;
  for (std::int64_t i = 0; i < axis && i < std::int64_t(out.size()); ++i) outer *= out[std::size_t(i)];
  return outer;
}

bool slice_args(const Graph& g, const Node& n, SliceArgs& a) {
  if (g.opset < 10) {
    a.starts = n.attr_ints("starts");
    a.ends = n.attr_ints("ends");
    a.axes = n.attr_ints("axes");
  } else {
    if (n.inputs.size() < 3) return false;
    for (std::size_t i = 1; i < n.inputs.size() && i <= 4; ++i)
      if (!n.inputs[i].empty() && !is_const(g, n.inputs[i])) return false;
    a.starts = g.tensor(n.inputs[1]).int_data;
    a.ends = g.tensor(n.inputs[2]).int_data;
    if (n.inputs.size() > 3 && !n.inputs[3].empty()) a.axes = g.tensor(n.inputs[3]).int_data;
    if (n.inputs.size() > 4 && !n.inputs[4].empty()) a.steps = g.tensor(n.inputs[4]).int_data;
  }
  if (a.axes.empty())
    for (std::size_t i = 0; i < a.starts.size(); ++i) a.axes.push_back(std::int64_t(i));
  return a.ends.size() == a.starts.size() && a.axes.size() == a.starts.size() &&
         (a.steps.empty() || a.steps.size() == a.starts.size());
}

void add_layout_ops(std::map<std::string, OpLowering>& t) {
  for (const char* op : {"Transpose", "Expand", "Tile", "Gather", "DepthToSpace", "SpaceToDepth", "RoiAlign",
                         "ScatterElements"})
    t[op] = OpLowering{check_layout, lower_layout, nullptr};
  add_embedding_gather(t);  // a Gather of a constant table: gather LOADs (embedding_gather.cpp)
  add_scatter_ops(t);       // a ScatterElements of whole rows: scatter STOREs (scatter_ops.cpp)
  t["Pad"] = OpLowering{check_layout, lower_layout, view_pad};
  t["Slice"] = OpLowering{check_layout, lower_layout, view_slice};
  t["Split"] = OpLowering{check_layout, lower_layout, view_split};
  // Outermost axis: zero copy / copies; inner axis: a layout copy.
  t["Concat"] = OpLowering{check_none, lower_concat, nullptr};
  for (const char* op : {"Flatten", "Reshape", "Identity", "Squeeze", "Unsqueeze", "Dropout"})
    t[op] = OpLowering{check_none, nullptr, nullptr, /*alias=*/true};
}

}  // namespace npu::compiler::lowering
